-- Analytics (issue 11) read one row per trace: the summary gains the token kinds the
-- dashboard charts (cached prompt tokens, reasoning tokens) and the normalized names of the
-- models its spans used (what "group by model" groups on: `openai/gpt-4o-mini` and
-- `gpt-4o-mini` are one model; unlike model_names, no snapshot families).
ALTER TABLE traces ADD COLUMN cached_input_tokens integer;
ALTER TABLE traces ADD COLUMN reasoning_tokens integer;
ALTER TABLE traces ADD COLUMN normalized_models text[] NOT NULL DEFAULT '{}';

UPDATE traces t SET cached_input_tokens = s.cached, reasoning_tokens = s.reasoning, normalized_models = s.models
FROM (
  SELECT project_id, trace_id, sum(cached_input_tokens)::int AS cached, sum(reasoning_tokens)::int AS reasoning,
    coalesce(array_agg(DISTINCT model_name) FILTER (WHERE model_name IS NOT NULL), '{}') AS models
  FROM spans GROUP BY project_id, trace_id
) s
WHERE t.project_id = s.project_id AND t.trace_id = s.trace_id;

-- Which monitor produced an evaluation (null: evaluated through the API), so a monitor's
-- page lists its results and its pass rate over time.
ALTER TABLE evaluations ADD COLUMN monitor_id text;
CREATE INDEX evaluations_monitor ON evaluations (project_id, monitor_id, inserted_at DESC, id DESC) WHERE monitor_id IS NOT NULL;
