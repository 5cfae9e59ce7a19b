-- Improving a judge: a new version of a custom judge run over the items its older version and
-- people both scored, and how far each version agrees with people (the judge-alignment module's
-- table). The answer is kept as the job wrote it, so a page shows the same numbers every time.
CREATE TABLE judge_version_comparisons (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  project_id text NOT NULL,
  evaluator text NOT NULL,
  baseline_version int NOT NULL,
  candidate_version int NOT NULL,
  score_config_id text NOT NULL,
  item_limit int NOT NULL,
  -- running, done, failed
  status text NOT NULL,
  error text,
  result jsonb,
  created_by text,
  created_at bigint NOT NULL,
  finished_at bigint
);
CREATE INDEX judge_version_comparisons_project ON judge_version_comparisons (project_id, evaluator, created_at);

-- An alert rule that requires a trusted judge records, per window it held back, why
-- ("judge not trusted: kappa's lower bound 0.41 < 0.6"); null when the window was decided as usual.
ALTER TABLE alert_evaluations ADD COLUMN held text;
