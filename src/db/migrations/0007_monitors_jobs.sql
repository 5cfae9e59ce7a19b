-- A durable job queue (monitor runs) and the monitors that feed it.
CREATE TABLE jobs (
  id            bigserial PRIMARY KEY,
  queue         text NOT NULL,
  -- One pending job per key: a new span of a trace pushes its evaluation back instead of adding another.
  dedupe_key    text UNIQUE,
  payload       jsonb NOT NULL,
  run_at        bigint NOT NULL,
  attempts      integer NOT NULL DEFAULT 0,
  max_attempts  integer NOT NULL DEFAULT 5,
  locked_until  bigint,
  last_error    text,
  failed_at     bigint,
  created_at    bigint NOT NULL
);
CREATE INDEX jobs_due ON jobs (queue, run_at) WHERE failed_at IS NULL;

CREATE TABLE monitors (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  project_id       text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name             text NOT NULL,
  evaluator        text NOT NULL,
  settings         jsonb NOT NULL DEFAULT '{}',
  sample           double precision NOT NULL DEFAULT 1 CHECK (sample >= 0 AND sample <= 1),
  filters          jsonb,
  enabled          boolean NOT NULL DEFAULT true,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX monitors_project ON monitors (project_id) WHERE enabled;
