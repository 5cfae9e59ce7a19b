-- Per-project privacy at ingest (src/modules/privacy): what is removed from incoming data
-- before anything is written. One row per project that changed them; no row means off.
CREATE TABLE privacy_settings (
  project_id      text PRIMARY KEY,
  mode            text NOT NULL CHECK (mode IN ('off', 'flag', 'mask', 'hash')),
  entities        jsonb NOT NULL,
  untouched_keys  jsonb NOT NULL,
  patterns        jsonb NOT NULL,
  updated_at      timestamptz NOT NULL
);
