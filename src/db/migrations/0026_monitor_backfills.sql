-- A monitor run over traces already stored (a backfill): the traces it matched when it
-- started, how far it got, and its state; a background job works through them in chunks.
CREATE TABLE monitor_backfills (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  project_id       text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  monitor_id       text NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  state            text NOT NULL CHECK (state IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  request          jsonb NOT NULL,
  -- The matching trace ids (at most 10,000), read in order; `position` of them are done.
  trace_ids        jsonb NOT NULL DEFAULT '[]',
  position         integer NOT NULL DEFAULT 0,
  total            integer NOT NULL DEFAULT 0,
  evaluated        integer NOT NULL DEFAULT 0,
  skipped          integer NOT NULL DEFAULT 0,
  failed           integer NOT NULL DEFAULT 0,
  error            text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX monitor_backfills_monitor ON monitor_backfills (project_id, monitor_id, created_at DESC);

-- A backfill asks which traces a monitor already evaluated, so no trace is evaluated twice by one monitor version.
CREATE INDEX evaluations_monitor_trace ON evaluations (project_id, monitor_id, trace_id) WHERE monitor_id IS NOT NULL;
