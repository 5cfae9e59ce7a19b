-- The run an experiment's comparisons default to (PUT /api/experiments/{slug}/baseline);
-- null when none is marked. A run id of the experiment, not a foreign key: runs are never deleted
-- apart from their experiment.
ALTER TABLE experiments ADD COLUMN baseline_run_id text;
