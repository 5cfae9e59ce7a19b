-- Saved views of the traces list, shared with the project: a name, the list's search (its
-- URL parameters: query, filters, sort) and the columns shown, in order.
CREATE TABLE trace_views (
  id          text PRIMARY KEY,
  project_id  text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name        text NOT NULL,
  search      jsonb NOT NULL DEFAULT '{}',
  columns     jsonb NOT NULL DEFAULT '[]',
  created_by  text,
  created_at  bigint NOT NULL,
  updated_at  bigint NOT NULL,
  UNIQUE (project_id, name)
);
