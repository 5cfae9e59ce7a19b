-- Experiments logged by an SDK (POST /api/experiment/init, /api/evaluations/batch/log_results):
-- an experiment per project and slug, its runs, and each run's result rows and evaluation
-- results keyed as the merge rules say (docs/experiments.md). target_id '' means "no target".
-- Run timestamps are milliseconds since the epoch, as the API carries them.
CREATE TABLE experiments (
  id text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  slug text NOT NULL,
  name text,
  type text NOT NULL,
  workflow_id text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (project_id, slug)
);
CREATE INDEX experiments_project_updated ON experiments (project_id, updated_at DESC, id);

CREATE TABLE experiment_runs (
  experiment_id text NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  run_id text NOT NULL,
  project_id text NOT NULL,
  workflow_version_id text,
  targets jsonb NOT NULL DEFAULT '[]',
  -- distinct result-row keys stored (incremented by the rows a post inserts, not replaces)
  progress integer NOT NULL DEFAULT 0,
  total integer NOT NULL DEFAULT 0,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  finished_at bigint,
  stopped_at bigint,
  PRIMARY KEY (experiment_id, run_id)
);
CREATE INDEX experiment_runs_project_run ON experiment_runs (project_id, run_id);
CREATE INDEX experiment_runs_experiment_created ON experiment_runs (experiment_id, created_at DESC);

CREATE TABLE experiment_results (
  experiment_id text NOT NULL,
  run_id text NOT NULL,
  idx integer NOT NULL,
  target_id text NOT NULL DEFAULT '',
  entry jsonb NOT NULL,
  predicted jsonb,
  cost double precision,
  duration double precision,
  error text,
  trace_id text,
  PRIMARY KEY (experiment_id, run_id, idx, target_id),
  FOREIGN KEY (experiment_id, run_id) REFERENCES experiment_runs (experiment_id, run_id) ON DELETE CASCADE
);

CREATE TABLE experiment_evaluations (
  experiment_id text NOT NULL,
  run_id text NOT NULL,
  idx integer NOT NULL,
  target_id text NOT NULL DEFAULT '',
  evaluator text NOT NULL,
  name text,
  status text NOT NULL,
  score double precision,
  label text,
  passed boolean,
  details text,
  cost double precision,
  duration double precision,
  inputs jsonb,
  PRIMARY KEY (experiment_id, run_id, idx, target_id, evaluator),
  FOREIGN KEY (experiment_id, run_id) REFERENCES experiment_runs (experiment_id, run_id) ON DELETE CASCADE
);
