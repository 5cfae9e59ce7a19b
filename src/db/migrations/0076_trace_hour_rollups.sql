-- Analytics over long ranges read per-hour sums of trace summaries instead of every summary.
--
-- trace_rollups: per project, hour (epoch ms of its UTC start) and latency value
-- (total_time_ms), the traces' count and sums: once over all of the hour's traces
-- (by_model false, model null), and once per model group (by_model true: each of a trace's
-- normalized models, null for a trace without one). The latency values kept exactly make
-- the percentiles exact.
--
-- trace_hours_dirty: the hours whose summaries changed since their rollup rows were made
-- (a row or more per hour; duplicates are harmless). Every write of the traces table marks
-- the hours of the rows it wrote or removed, in the same transaction (the triggers below);
-- dropping a day's partition marks its hours itself. A background task recomputes dirty
-- hours; readers take an hour from trace_rollups only when it is not dirty, and aggregate
-- the rest from the summaries, so the answer is always the summaries'.
CREATE TABLE trace_rollups (
  project_id text NOT NULL,
  hour bigint NOT NULL,
  by_model boolean NOT NULL,
  model text,
  latency_ms integer,
  traces bigint NOT NULL,
  spans bigint,
  errors bigint NOT NULL,
  cost double precision,
  prompt_tokens bigint,
  completion_tokens bigint,
  cached_input_tokens bigint,
  reasoning_tokens bigint
);
CREATE INDEX trace_rollups_hour ON trace_rollups (project_id, by_model, hour);

CREATE TABLE trace_hours_dirty (
  project_id text NOT NULL,
  hour bigint NOT NULL
);
CREATE INDEX trace_hours_dirty_hour ON trace_hours_dirty (project_id, hour);

-- The hours of the written (or removed) rows, marked unless already marked. The existing
-- mark is locked (shared) until the writer commits: a recompute deleting it waits, and then
-- sees the writer's rows. Writers never wait for each other (no unique key to wait on).
CREATE FUNCTION trace_hours_touched() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
    WITH touched AS (SELECT DISTINCT project_id, started_at - started_at % 3600000 AS hour FROM touched_new),
    marked AS (SELECT d.project_id, d.hour FROM trace_hours_dirty d JOIN touched t ON d.project_id = t.project_id AND d.hour = t.hour FOR SHARE OF d)
    INSERT INTO trace_hours_dirty (project_id, hour)
    SELECT t.project_id, t.hour FROM touched t WHERE NOT EXISTS (SELECT 1 FROM marked m WHERE m.project_id = t.project_id AND m.hour = t.hour);
  END IF;
  IF TG_OP = 'UPDATE' OR TG_OP = 'DELETE' THEN
    WITH touched AS (SELECT DISTINCT project_id, started_at - started_at % 3600000 AS hour FROM touched_old),
    marked AS (SELECT d.project_id, d.hour FROM trace_hours_dirty d JOIN touched t ON d.project_id = t.project_id AND d.hour = t.hour FOR SHARE OF d)
    INSERT INTO trace_hours_dirty (project_id, hour)
    SELECT t.project_id, t.hour FROM touched t WHERE NOT EXISTS (SELECT 1 FROM marked m WHERE m.project_id = t.project_id AND m.hour = t.hour);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER traces_hours_inserted AFTER INSERT ON traces REFERENCING NEW TABLE AS touched_new
  FOR EACH STATEMENT EXECUTE FUNCTION trace_hours_touched();
CREATE TRIGGER traces_hours_updated AFTER UPDATE ON traces REFERENCING OLD TABLE AS touched_old NEW TABLE AS touched_new
  FOR EACH STATEMENT EXECUTE FUNCTION trace_hours_touched();
CREATE TRIGGER traces_hours_deleted AFTER DELETE ON traces REFERENCING OLD TABLE AS touched_old
  FOR EACH STATEMENT EXECUTE FUNCTION trace_hours_touched();

-- Traces stored before: every hour of theirs is dirty (the task rolls them up).
INSERT INTO trace_hours_dirty (project_id, hour)
SELECT DISTINCT project_id, started_at - started_at % 3600000 FROM traces;
