-- The hourly rollups of trace summaries (0076) hold one row per project, hour and model group
-- (or all traces) instead of one per latency sketch bucket met in the hour: the hour's latency
-- sketch is the row's two arrays, latency_buckets (the sketch buckets met, ascending) and
-- latency_counts (the traces in each). A 30-day chart reads 720 rows per group where it read
-- one per bucket (about 230 an hour at 1,400 traces an hour) and merges their sketches.
-- Traces without a latency count in `traces` and in no bucket.
--
-- Existing rows are folded into the new rows in place: each hour's rows are exact (or the hour
-- is in trace_hours_dirty, which stays as it is).
ALTER TABLE trace_rollups RENAME TO trace_rollups_by_bucket;
ALTER INDEX trace_rollups_hour RENAME TO trace_rollups_by_bucket_hour;

CREATE TABLE trace_rollups (
  project_id text NOT NULL,
  hour bigint NOT NULL,
  by_model boolean NOT NULL,
  model text,
  traces bigint NOT NULL,
  spans bigint,
  errors bigint NOT NULL,
  cost double precision,
  prompt_tokens bigint,
  completion_tokens bigint,
  cached_input_tokens bigint,
  reasoning_tokens bigint,
  latency_buckets smallint[] NOT NULL,
  latency_counts integer[] NOT NULL
);

INSERT INTO trace_rollups (project_id, hour, by_model, model, traces, spans, errors, cost, prompt_tokens, completion_tokens, cached_input_tokens,
  reasoning_tokens, latency_buckets, latency_counts)
SELECT project_id, hour, by_model, model, sum(traces), sum(spans), sum(errors), sum(cost), sum(prompt_tokens), sum(completion_tokens),
  sum(cached_input_tokens), sum(reasoning_tokens),
  coalesce(array_agg(latency_bucket ORDER BY latency_bucket) FILTER (WHERE latency_bucket IS NOT NULL), '{}'),
  coalesce(array_agg(traces::integer ORDER BY latency_bucket) FILTER (WHERE latency_bucket IS NOT NULL), '{}')
FROM trace_rollups_by_bucket
GROUP BY project_id, hour, by_model, model;

DROP TABLE trace_rollups_by_bucket;
CREATE INDEX trace_rollups_hour ON trace_rollups (project_id, by_model, hour);
