-- Improving a judge: a version comparison is backed by an experiment run whose target is the
-- judge (the experiments module runs it; its rows are the labelled items). The comparison keeps
-- the run it follows and the items it set against people: per item its trace, people's value,
-- the measured version's value and the run's row.
ALTER TABLE judge_version_comparisons
  ADD COLUMN experiment_slug text,
  ADD COLUMN run_id text,
  ADD COLUMN run_url text,
  ADD COLUMN items jsonb;
-- Comparisons still running were jobs of a queue no longer served: they end, saying why.
UPDATE judge_version_comparisons
  SET status = 'failed', error = 'stopped by an upgrade of the server before it finished; start the comparison again', finished_at = created_at
  WHERE status = 'running';
