-- The outbox: events written in the same transaction as the change that caused them.
-- The webhook dispatcher reads them in seq order; nothing is lost if the process dies.
CREATE TABLE events (
  seq              bigserial PRIMARY KEY,
  id               text NOT NULL UNIQUE,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  project_id       text REFERENCES projects (id) ON DELETE CASCADE,
  type             text NOT NULL,
  schema_version   text NOT NULL,
  data             jsonb NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_project_seq ON events (project_id, seq);
