-- Analytics over long ranges read per-hour sums of trace summaries instead of every summary,
-- and latency percentiles from a sketch with a bounded relative error instead of every value.
--
-- The latency sketch: a latency v > 0 ms falls in bucket ceil(ln(v) / ln(gamma)), gamma =
-- 101/99, whose values lie in (gamma^(i-1), gamma^i]; the bucket stands for 2 gamma^i / (gamma + 1),
-- within 1 % of each of them (alpha = (gamma - 1) / (gamma + 1) = 0.01). 0 ms (and below) has
-- bucket -1, standing for 0. A percentile interpolated between two buckets' values is within
-- 1 % of the one interpolated between the exact values. Real latencies are nearly all distinct;
-- 0.2-20 s spans about 230 buckets.
CREATE FUNCTION latency_sketch_bucket(v integer) RETURNS smallint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN v > 0 THEN ceil(ln(v::float8) / ln(101::float8 / 99))::smallint WHEN v IS NOT NULL THEN -1::smallint END
$$;
CREATE FUNCTION latency_sketch_value(b smallint) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN b >= 0 THEN 2 * power(101::float8 / 99, b) / (101::float8 / 99 + 1) WHEN b IS NOT NULL THEN 0::float8 END
$$;

-- trace_rollups: per project, hour (epoch ms of its UTC start) and latency bucket, the traces'
-- count and sums: once over all of the hour's traces (by_model false, model null), and once per
-- model group (by_model true: each of a trace's normalized models, null for a trace without one).
--
-- trace_hours_dirty: the hours whose summaries changed since their rollup rows were made
-- (a row or more per hour; duplicates are harmless). Every write of the traces table marks
-- the hours of the rows it wrote or removed, in the same transaction (the triggers below);
-- dropping a day's partitions deletes the day's rollup rows in the same transaction. A
-- background task recomputes dirty hours; readers take an hour from trace_rollups only when
-- it is not dirty, and aggregate the rest from the summaries, so the answer is always the
-- summaries'.
CREATE TABLE trace_rollups (
  project_id text NOT NULL,
  hour bigint NOT NULL,
  by_model boolean NOT NULL,
  model text,
  latency_bucket smallint,
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
