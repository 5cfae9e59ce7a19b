-- Agent simulations reported by LangWatch's Scenario package (POST /api/scenario-events): one
-- row per scenario run, holding its latest conversation snapshot and its verdict. The
-- simulations module's table.
CREATE TABLE simulation_runs (
  project_id text NOT NULL,
  scenario_run_id text NOT NULL,
  organization_id text NOT NULL,
  scenario_set_id text NOT NULL,
  batch_run_id text NOT NULL,
  scenario_id text NOT NULL,
  name text,
  description text,
  metadata jsonb NOT NULL DEFAULT '{}',
  -- IN_PROGRESS until a finished event: SUCCESS, FAILED, ERROR, CANCELLED (or PENDING).
  status text NOT NULL,
  verdict text CHECK (verdict IN ('success', 'failure', 'inconclusive')),
  reasoning text,
  met_criteria jsonb NOT NULL DEFAULT '[]',
  unmet_criteria jsonb NOT NULL DEFAULT '[]',
  error text,
  -- The latest snapshot of the conversation (each snapshot is the whole history so far).
  messages jsonb NOT NULL DEFAULT '[]',
  -- The event timestamp of that snapshot: an older snapshot arriving late does not replace it.
  messages_at bigint,
  trace_ids jsonb NOT NULL DEFAULT '[]',
  events integer NOT NULL DEFAULT 0,
  started_at bigint NOT NULL,
  finished_at bigint,
  updated_at bigint NOT NULL,
  archived_at bigint,
  PRIMARY KEY (project_id, scenario_run_id)
);
CREATE INDEX simulation_runs_set ON simulation_runs (project_id, scenario_set_id, started_at DESC) WHERE archived_at IS NULL;
CREATE INDEX simulation_runs_batch ON simulation_runs (project_id, batch_run_id, started_at) WHERE archived_at IS NULL;
