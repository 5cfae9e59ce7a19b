-- Experiments run by the platform (type EVALUATIONS_V3): the definition (dataset, targets,
-- evaluators, concurrency) per experiment, and per run what it runs on (the selected rows,
-- copied when the run starts, and the definition as it was) and its state. Result rows and
-- evaluations go to experiment_results / experiment_evaluations like SDK-logged runs; a cell
-- (row index, target) is done exactly when its result row exists.
CREATE TABLE experiment_definitions (
  experiment_id text PRIMARY KEY REFERENCES experiments(id) ON DELETE CASCADE,
  project_id text NOT NULL,
  definition jsonb NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE experiment_platform_runs (
  experiment_id text NOT NULL,
  run_id text NOT NULL,
  project_id text NOT NULL,
  organization_id text NOT NULL,
  -- running, completed, stopped or failed
  status text NOT NULL,
  plan jsonb NOT NULL,
  rows jsonb NOT NULL,
  error text,
  PRIMARY KEY (experiment_id, run_id),
  FOREIGN KEY (experiment_id, run_id) REFERENCES experiment_runs (experiment_id, run_id) ON DELETE CASCADE
);
