-- Topics: what users ask about. The topics module's tables: per project its settings and the
-- state of the last build, the topics found (a centroid each), and per trace its input's
-- embedding and the topic it joined.
CREATE TABLE topic_settings (
  project_id text PRIMARY KEY,
  -- The scheduler embeds and names with the project's (or its organization's) model providers.
  organization_id text NOT NULL,
  -- provider/model; null: topics are off for the project.
  embeddings_model text,
  -- provider/model naming each topic; null: topics are named by their keywords.
  naming_model text,
  recluster_hours integer NOT NULL DEFAULT 24,
  updated_at bigint NOT NULL,
  -- The last build that finished, and the last failure (of a build or of embedding new traces).
  built_at bigint,
  built_traces integer,
  build_requested_at bigint,
  -- A process building this project's topics holds them until then (several processes share the schedule).
  build_claimed_until bigint,
  last_error text,
  last_error_at bigint
);

CREATE TABLE topics (
  project_id text NOT NULL,
  topic_id text NOT NULL,
  name text NOT NULL,
  keywords text[] NOT NULL DEFAULT '{}',
  -- The unit-length mean of its members' embeddings, float32 little-endian.
  centroid bytea NOT NULL,
  -- Traces in the topic when it was built.
  size integer NOT NULL,
  built_at bigint NOT NULL,
  PRIMARY KEY (project_id, topic_id)
);

CREATE TABLE trace_topics (
  project_id text NOT NULL,
  trace_id text NOT NULL,
  -- The trace input's embedding, float32 little-endian, unit length; null: the trace has no input.
  embedding bytea,
  topic_id text,
  -- Cosine similarity to the topic's centroid when it joined.
  similarity real,
  -- The trace's start (for topics' trends without reading traces).
  started_at bigint NOT NULL,
  embedded_at bigint NOT NULL,
  PRIMARY KEY (project_id, trace_id)
);
CREATE INDEX trace_topics_topic ON trace_topics (project_id, topic_id);
CREATE INDEX trace_topics_started ON trace_topics (project_id, started_at);
