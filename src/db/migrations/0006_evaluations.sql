-- Evaluation results stored on traces (POST /api/evaluations/.../evaluate with trace_id).
-- No foreign key to traces: a result may arrive before its trace does.
-- Times are epoch milliseconds, as the API speaks them.
CREATE TABLE evaluations (
  id                text PRIMARY KEY,
  project_id        text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  trace_id          text NOT NULL,
  evaluator         text NOT NULL,
  name              text NOT NULL,
  status            text NOT NULL CHECK (status IN ('processed', 'skipped', 'error')),
  score             double precision,
  passed            boolean,
  label             text,
  details           text,
  cost_amount       double precision,
  cost_currency     text,
  settings          jsonb NOT NULL DEFAULT '{}',
  is_guardrail      boolean NOT NULL DEFAULT false,
  error_type        text,
  error_message     text,
  error_stacktrace  jsonb,
  inserted_at       bigint NOT NULL,
  updated_at        bigint NOT NULL
);
CREATE INDEX evaluations_project_trace ON evaluations (project_id, trace_id, inserted_at, id);
