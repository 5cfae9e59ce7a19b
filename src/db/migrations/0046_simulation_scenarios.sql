-- Agent simulations the server runs: scenarios defined in the app or over the API, and the plan
-- of each scenario run a batch started (what the job running it reads, the agent's headers
-- sealed). The runs themselves, their conversations and verdicts, are rows of simulation_runs,
-- as reported ones are. The simulations module's tables.
CREATE TABLE simulation_scenarios (
  project_id text NOT NULL,
  id text NOT NULL,
  scenario_set_id text NOT NULL,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  persona text NOT NULL,
  goal text NOT NULL,
  criteria jsonb NOT NULL,
  max_turns integer NOT NULL,
  -- {type: http, url, output_field, timeout_ms, sealed_headers?} or {type: prompt, prompt, version?, model?}
  target jsonb NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (project_id, id)
);
CREATE UNIQUE INDEX simulation_scenarios_name ON simulation_scenarios (project_id, scenario_set_id, lower(name));

CREATE TABLE simulation_server_runs (
  project_id text NOT NULL,
  scenario_run_id text NOT NULL,
  organization_id text NOT NULL,
  batch_run_id text NOT NULL,
  -- The scenario as it was when the batch started, the models playing the user and the judge.
  plan jsonb NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, scenario_run_id)
);
