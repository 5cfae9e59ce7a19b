-- Threads evaluated as threads: a monitor's unit is a trace (as before) or a thread, which it
-- evaluates once the thread has been idle for idle_minutes. A thread's results are stored
-- against the thread, with the turns (traces) each covered. The monitors module owns the two
-- new columns; the threads module owns thread_evaluations.
ALTER TABLE monitors ADD COLUMN unit text NOT NULL DEFAULT 'trace' CHECK (unit IN ('trace', 'thread'));
ALTER TABLE monitors ADD COLUMN idle_minutes integer CHECK (idle_minutes IS NULL OR (idle_minutes >= 1 AND idle_minutes <= 10080));

CREATE TABLE thread_evaluations (
  id                text PRIMARY KEY,
  project_id        text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  thread_id         text NOT NULL,
  -- The monitor that ran it (null once the monitor is deleted, or for a result not from a monitor).
  monitor_id        text,
  evaluator         text NOT NULL,
  evaluator_version integer,
  name              text NOT NULL,
  status            text NOT NULL CHECK (status IN ('processed', 'skipped', 'error')),
  passed            boolean,
  score             double precision,
  label             text,
  details           text,
  cost_amount       double precision,
  -- The turns it covered, oldest first, and the newest change among them (a turn's spans can
  -- keep arriving): a thread whose turns are these, unchanged since, is not evaluated again.
  trace_ids         text[] NOT NULL,
  turns             integer NOT NULL,
  covered_through   bigint NOT NULL,
  inserted_at       bigint NOT NULL
);
CREATE INDEX thread_evaluations_thread ON thread_evaluations (project_id, thread_id, inserted_at DESC);
CREATE INDEX thread_evaluations_monitor ON thread_evaluations (project_id, monitor_id, inserted_at DESC);
