-- What the data expects of the installation's keys, compared at every start before anything
-- is written (src/ops/key-check.ts):
-- - kind 'token-hash': one row, key_id the key's fingerprint and verifier an HMAC-SHA256 of a
--   fixed label under the token-hash key (never the key);
-- - kind 'encryption': one row per master key id that a process has sealed values with.
CREATE TABLE installation_keys (
  kind         text NOT NULL CHECK (kind IN ('token-hash', 'encryption')),
  key_id       text NOT NULL,
  verifier     text,
  recorded_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, key_id)
);
CREATE UNIQUE INDEX installation_keys_one_token_hash ON installation_keys (kind) WHERE kind = 'token-hash';

-- The key ids the cache's values are sealed with, read at every start in a few index lookups.
CREATE INDEX agent_cache_entries_key_id ON agent_cache_entries (key_id);
