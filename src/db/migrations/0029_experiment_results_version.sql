-- A run's results version: a fresh number from one sequence each time the run's rows or
-- evaluations are written, so a process may keep what it computed from a run (its statistics,
-- the values comparisons pair) for as long as the number is unchanged. A sequence, not a
-- counter: a run deleted and logged again under the same id never meets its old number.
CREATE SEQUENCE experiment_results_versions;
ALTER TABLE experiment_runs ADD COLUMN results_version bigint NOT NULL DEFAULT nextval('experiment_results_versions');
