-- Analytics over a range of a project's traces read their time, latency, sums and models, and
-- join evaluations and annotations by trace id, from this index alone (an index-only scan),
-- not from the wide trace rows.
CREATE INDEX traces_time_sums ON traces (project_id, started_at)
  INCLUDE (trace_id, total_time_ms, span_count, has_error, total_cost, prompt_tokens, completion_tokens, cached_input_tokens, reasoning_tokens, normalized_models);
