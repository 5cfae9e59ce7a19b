-- When a key last authenticated a request (kept to the minute: see ApiKeyService.resolve).
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
