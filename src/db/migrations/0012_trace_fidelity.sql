-- One model, two names: spans keep the model as it was sent and gain its normalized name
-- (lower case, provider prefix removed: `openai/gpt-4o-mini` -> `gpt-4o-mini`); traces gain
-- the names a model filter matches (normalized names and their snapshot families). The
-- application computes both at ingest; the backfill below approximates that for rows
-- already stored (path prefix and date/number suffixes only).
ALTER TABLE spans ADD COLUMN model_name text;
ALTER TABLE traces ADD COLUMN model_names text[] NOT NULL DEFAULT '{}';

UPDATE spans SET model_name = lower(regexp_replace(model, '^.*/', '')) WHERE model IS NOT NULL;
UPDATE spans SET vendor = lower(split_part(model, '/', 1))
  WHERE vendor IS NULL AND model ~* '^(openai|azure|azure_ai|anthropic|google|gemini|vertex_ai|vertexai|bedrock|mistral|mistralai|groq|deepseek|cohere|xai|ollama|openrouter|together_ai|fireworks_ai|perplexity|cerebras)/';
UPDATE traces t SET model_names = coalesce((
    SELECT array_agg(DISTINCT v.n)
    FROM unnest(t.models) AS m(name),
      LATERAL (VALUES (lower(regexp_replace(m.name, '^.*/', ''))),
                      (regexp_replace(lower(regexp_replace(m.name, '^.*/', '')), '-(\d{4}-\d{2}-\d{2}|\d{8}|\d{3,4}|latest)$', ''))) AS v(n)
  ), '{}')
  WHERE cardinality(t.models) > 0;

-- GenAI content sent as OTLP log records (gen_ai.user.message, gen_ai.choice, ...) whose
-- span has not arrived yet: kept here until the span comes (ingest merges and deletes
-- them) or, for a span that never comes, until the prune deletes them (3 days).
CREATE TABLE span_log_events (
  id           bigserial PRIMARY KEY,
  project_id   text NOT NULL,
  trace_id     text NOT NULL,
  span_id      text NOT NULL,
  received_at  bigint NOT NULL,
  events       jsonb NOT NULL
);
CREATE INDEX span_log_events_trace ON span_log_events (project_id, trace_id);
CREATE INDEX span_log_events_received ON span_log_events (received_at);
