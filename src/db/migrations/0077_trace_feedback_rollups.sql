-- The charts' thumbs and verdicts over long ranges read per-hour counts beside the hourly
-- rollups of trace summaries (0076), instead of joining every thumb and verdict to its trace.
--
-- trace_thumb_rollups: per project and hour (of the trace's start), the thumbs up and down of
-- the hour's traces: once over all of them (by_model false, model null), and once per model
-- group (by_model true: each of the trace's normalized models, null for a trace without one).
-- trace_verdict_rollups: per project, hour, evaluation name and evaluator, the verdicts passed
-- and failed of the hour's traces (evaluations processed with a verdict).
--
-- Both are exact for every hour not in trace_hours_dirty, as trace_rollups are: the hour's rows
-- of all three are made again together. Besides the traces' own writes, every write of a thumb
-- (an annotation with is_thumbs_up set, before or after) or of a verdict (an evaluation
-- processed with a verdict, before or after) marks the hour its trace starts in, in the same
-- transaction (the triggers below), however old the trace: a late thumb on last month's trace
-- makes that hour dirty. A thumb or verdict whose trace is not stored yet marks nothing: the
-- trace's insert marks its hour.
CREATE TABLE trace_thumb_rollups (
  project_id text NOT NULL,
  hour bigint NOT NULL,
  by_model boolean NOT NULL,
  model text,
  up bigint NOT NULL,
  down bigint NOT NULL
);
CREATE INDEX trace_thumb_rollups_hour ON trace_thumb_rollups (project_id, by_model, hour);

CREATE TABLE trace_verdict_rollups (
  project_id text NOT NULL,
  hour bigint NOT NULL,
  name text NOT NULL,
  evaluator text NOT NULL,
  passed bigint NOT NULL,
  failed bigint NOT NULL
);
CREATE INDEX trace_verdict_rollups_hour ON trace_verdict_rollups (project_id, hour);

-- Marks the hours the given traces start in, as trace_hours_touched marks them (an existing
-- mark is share-locked until the writer commits). Traces not stored yet mark nothing.
CREATE FUNCTION trace_hours_of_traces(project_ids text[], trace_ids text[]) RETURNS void LANGUAGE sql AS $$
  WITH touched AS (
    SELECT DISTINCT t.project_id, t.started_at - t.started_at % 3600000 AS hour
    FROM (SELECT DISTINCT * FROM unnest(project_ids, trace_ids) AS n(project_id, trace_id)) n
      JOIN traces t ON t.project_id = n.project_id AND t.trace_id = n.trace_id),
  marked AS (SELECT d.project_id, d.hour FROM trace_hours_dirty d JOIN touched t ON d.project_id = t.project_id AND d.hour = t.hour FOR SHARE OF d)
  INSERT INTO trace_hours_dirty (project_id, hour)
  SELECT t.project_id, t.hour FROM touched t WHERE NOT EXISTS (SELECT 1 FROM marked m WHERE m.project_id = t.project_id AND m.hour = t.hour);
$$;

-- The hours of the traces of the written (or removed) thumbs: annotations with a thumb set.
CREATE FUNCTION trace_hours_of_thumbs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
    PERFORM trace_hours_of_traces(array_agg(project_id), array_agg(trace_id)) FROM touched_new WHERE is_thumbs_up IS NOT NULL;
  END IF;
  IF TG_OP = 'UPDATE' OR TG_OP = 'DELETE' THEN
    PERFORM trace_hours_of_traces(array_agg(project_id), array_agg(trace_id)) FROM touched_old WHERE is_thumbs_up IS NOT NULL;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER annotations_thumb_hours_inserted AFTER INSERT ON annotations REFERENCING NEW TABLE AS touched_new
  FOR EACH STATEMENT EXECUTE FUNCTION trace_hours_of_thumbs();
CREATE TRIGGER annotations_thumb_hours_updated AFTER UPDATE ON annotations REFERENCING OLD TABLE AS touched_old NEW TABLE AS touched_new
  FOR EACH STATEMENT EXECUTE FUNCTION trace_hours_of_thumbs();
CREATE TRIGGER annotations_thumb_hours_deleted AFTER DELETE ON annotations REFERENCING OLD TABLE AS touched_old
  FOR EACH STATEMENT EXECUTE FUNCTION trace_hours_of_thumbs();

-- The same for verdicts: evaluations processed with a verdict (a result stored before its trace
-- is in another day than the trace's: the join does not name the day).
CREATE FUNCTION trace_hours_of_verdicts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
    PERFORM trace_hours_of_traces(array_agg(project_id), array_agg(trace_id)) FROM touched_new WHERE status = 'processed' AND passed IS NOT NULL;
  END IF;
  IF TG_OP = 'UPDATE' OR TG_OP = 'DELETE' THEN
    PERFORM trace_hours_of_traces(array_agg(project_id), array_agg(trace_id)) FROM touched_old WHERE status = 'processed' AND passed IS NOT NULL;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER evaluations_verdict_hours_inserted AFTER INSERT ON evaluations REFERENCING NEW TABLE AS touched_new
  FOR EACH STATEMENT EXECUTE FUNCTION trace_hours_of_verdicts();
CREATE TRIGGER evaluations_verdict_hours_updated AFTER UPDATE ON evaluations REFERENCING OLD TABLE AS touched_old NEW TABLE AS touched_new
  FOR EACH STATEMENT EXECUTE FUNCTION trace_hours_of_verdicts();
CREATE TRIGGER evaluations_verdict_hours_deleted AFTER DELETE ON evaluations REFERENCING OLD TABLE AS touched_old
  FOR EACH STATEMENT EXECUTE FUNCTION trace_hours_of_verdicts();

-- Hours rolled up before have no thumb or verdict rows yet: every hour with a trace is dirty.
INSERT INTO trace_hours_dirty (project_id, hour)
SELECT DISTINCT project_id, started_at - started_at % 3600000 FROM traces;
