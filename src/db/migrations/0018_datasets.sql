-- Datasets: a project's tables of examples (docs/datasets.md). Records are versioned
-- without copies: a row is live from the version that added it (version_added) until the
-- version that removed or replaced it (version_removed, null while live). An edit ends the
-- old row and adds its successor under the same record id and position.
CREATE TABLE datasets (
  id              text PRIMARY KEY,
  project_id      text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name            text NOT NULL,
  slug            text NOT NULL,
  -- [{name, type}], in column order.
  column_types    jsonb NOT NULL DEFAULT '[]',
  -- The newest version (0: no record was ever written).
  version         integer NOT NULL DEFAULT 0,
  -- Live records now (the listing's recordCount and the records route's total).
  record_count    integer NOT NULL DEFAULT 0,
  -- Records are ordered by position; each write reserves the next ones here.
  next_position   bigint NOT NULL DEFAULT 0,
  -- How a trace or span becomes a record of this dataset (the last mapping used).
  trace_mapping   jsonb,
  archived_at     timestamptz,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
-- A slug is unique among the project's live datasets only: archiving frees it.
CREATE UNIQUE INDEX datasets_live_slug ON datasets (project_id, slug) WHERE archived_at IS NULL;
CREATE INDEX datasets_live_created ON datasets (project_id, created_at DESC, id) WHERE archived_at IS NULL;

-- No foreign key (a check per row of a 100,000-row upload): records leave with their
-- project (DatasetsModule's onProjectDeleted listener), archived datasets keep theirs.
CREATE TABLE dataset_records (
  dataset_id       text NOT NULL,
  id               text NOT NULL,
  project_id       text NOT NULL,
  position         bigint NOT NULL,
  -- json, not jsonb: an entry reads back with its keys in the order they were written.
  entry            json NOT NULL,
  version_added    integer NOT NULL,
  version_removed  integer,
  trace_id         text,
  span_id          text,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
-- Two indexes only (each costs every row of a 100,000-row upload its WAL): rows in order,
-- live or as of a version (ended rows are few beside live ones), and one live row per record id.
CREATE INDEX dataset_records_order ON dataset_records (dataset_id, position);
CREATE UNIQUE INDEX dataset_records_live_id ON dataset_records (dataset_id, id) WHERE version_removed IS NULL;

-- One row per version: when and what changed.
CREATE TABLE dataset_versions (
  dataset_id    text NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
  version       integer NOT NULL,
  -- records_added, records_updated, records_deleted, columns_changed, file_uploaded, from_traces
  change        text NOT NULL,
  added         integer NOT NULL DEFAULT 0,
  updated       integer NOT NULL DEFAULT 0,
  removed       integer NOT NULL DEFAULT 0,
  -- Live records as of this version, and the columns they had.
  record_count  integer NOT NULL,
  column_types  jsonb NOT NULL,
  created_at    timestamptz NOT NULL,
  PRIMARY KEY (dataset_id, version)
);

-- Adding traces matching a search to a dataset runs as a background job; its progress is read here.
CREATE TABLE dataset_imports (
  id            text PRIMARY KEY,
  project_id    text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  dataset_id    text NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
  status        text NOT NULL,
  total         integer NOT NULL DEFAULT 0,
  done          integer NOT NULL DEFAULT 0,
  error         text,
  request       jsonb NOT NULL,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL
);
