-- Span payloads are stored and returned whole, never queried inside: plain json skips
-- jsonb's parse into binary form on write and its rendering back to text on read
-- (measured: see bench/ and the README's numbers).
ALTER TABLE spans ALTER COLUMN data TYPE json USING data::json;

-- Retention deletes by started_at, which traces_time serves; this index only cost writes.
DROP INDEX IF EXISTS traces_retention;
