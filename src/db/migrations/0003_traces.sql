-- Spans as they arrive, and one summary row per trace that search reads.
-- Times are epoch milliseconds (the API speaks integers).
CREATE TABLE spans (
  project_id           text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  trace_id             text NOT NULL,
  span_id              text NOT NULL,
  parent_id            text,
  name                 text,
  type                 text NOT NULL,
  model                text,
  vendor               text,
  started_at           bigint NOT NULL,
  finished_at          bigint NOT NULL,
  first_token_at       bigint,
  inserted_at          bigint NOT NULL,
  updated_at           bigint NOT NULL,
  prompt_tokens        integer,
  completion_tokens    integer,
  cached_input_tokens  integer,
  reasoning_tokens     integer,
  tokens_estimated     boolean NOT NULL DEFAULT false,
  cost                 double precision,
  has_error            boolean NOT NULL DEFAULT false,
  error                jsonb,
  -- Short texts the trace summary is built from, so summaries never read the big payloads.
  input_text           text,
  output_text          text,
  trace_meta           jsonb,
  -- Everything else of the span (params, input, output, attributes, resource, events, ...).
  data                 jsonb NOT NULL,
  PRIMARY KEY (project_id, trace_id, span_id)
);

CREATE TABLE traces (
  project_id         text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  trace_id           text NOT NULL,
  started_at         bigint NOT NULL,
  finished_at        bigint NOT NULL,
  inserted_at        bigint NOT NULL,
  updated_at         bigint NOT NULL,
  input              text,
  output             text,
  user_id            text,
  thread_id          text,
  customer_id        text,
  labels             text[] NOT NULL DEFAULT '{}',
  metadata           jsonb NOT NULL DEFAULT '{}',
  models             text[] NOT NULL DEFAULT '{}',
  span_types         text[] NOT NULL DEFAULT '{}',
  span_count         integer NOT NULL,
  first_token_ms     integer,
  total_time_ms      integer,
  prompt_tokens      integer,
  completion_tokens  integer,
  tokens_estimated   boolean NOT NULL DEFAULT false,
  total_cost         double precision,
  has_error          boolean NOT NULL DEFAULT false,
  error              jsonb,
  search_text        text NOT NULL DEFAULT '',
  indexing_md5       text NOT NULL DEFAULT '',
  PRIMARY KEY (project_id, trace_id)
);
CREATE INDEX traces_time ON traces (project_id, started_at DESC, trace_id DESC);
CREATE INDEX traces_cost ON traces (project_id, total_cost DESC NULLS LAST, trace_id DESC);
CREATE INDEX traces_latency ON traces (project_id, total_time_ms DESC NULLS LAST, trace_id DESC);
CREATE INDEX traces_user ON traces (project_id, user_id) WHERE user_id IS NOT NULL;
CREATE INDEX traces_thread ON traces (project_id, thread_id) WHERE thread_id IS NOT NULL;
CREATE INDEX traces_customer ON traces (project_id, customer_id) WHERE customer_id IS NOT NULL;
CREATE INDEX traces_search ON traces USING gin (search_text gin_trgm_ops);
CREATE INDEX traces_retention ON traces (project_id, inserted_at);

CREATE TABLE trace_shares (
  token       text PRIMARY KEY,
  project_id  text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  trace_id    text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, trace_id)
);
