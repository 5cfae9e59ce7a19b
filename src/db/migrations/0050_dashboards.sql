-- Dashboards a team builds: one row per named dashboard of a project, its whole definition
-- (time range, filter, charts with their grid places) as one JSON document, read and written
-- whole (GET/PUT), so it can be kept in git. The dashboards module's table.
CREATE TABLE dashboards (
  project_id text NOT NULL,
  id text NOT NULL,
  organization_id text NOT NULL,
  name text NOT NULL,
  definition jsonb NOT NULL,
  -- Counts the writes: a client can tell whether the one it read is still the one stored.
  version integer NOT NULL DEFAULT 1,
  created_by text,
  updated_by text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (project_id, id)
);
