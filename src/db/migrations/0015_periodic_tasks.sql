-- Periodic sweeps (retention, cache and session expiry) run once per period however many
-- server processes share the database: a process runs a sweep only when it moves the
-- sweep's last start forward, which one process does per period.
CREATE TABLE periodic_tasks (
  name             text PRIMARY KEY,
  -- epoch ms, by the database's clock (the one clock every process shares)
  last_started_at  bigint NOT NULL,
  runs             bigint NOT NULL DEFAULT 1
);
