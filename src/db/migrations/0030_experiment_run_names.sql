-- A run's name as a person gave it; null means the name made from what the run ran
-- (its prompts and versions, models and start time), computed when a run is answered.
ALTER TABLE experiment_runs ADD COLUMN name text;
