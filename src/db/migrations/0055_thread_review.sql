-- Human review of threads: a review queue item is a trace (or one of its spans) as before, or a
-- whole thread (thread_id set, trace_id ''). The review module owns the items; the annotations
-- module owns thread_reviews and thread_review_scores, a reviewer's scores of a conversation
-- stored against the thread (as annotations and annotation_scores are against a trace).
ALTER TABLE review_queue_items ADD COLUMN thread_id text NOT NULL DEFAULT '';
ALTER TABLE review_queue_items DROP CONSTRAINT review_queue_items_queue_id_trace_id_span_id_key;
ALTER TABLE review_queue_items ADD CONSTRAINT review_queue_items_queue_id_thread_id_trace_id_span_id_key UNIQUE (queue_id, thread_id, trace_id, span_id);
ALTER TABLE review_queue_items ADD CONSTRAINT review_queue_items_one_subject CHECK ((thread_id = '') <> (trace_id = ''));
ALTER TABLE review_queue_items DROP CONSTRAINT review_queue_items_source_check;
ALTER TABLE review_queue_items ADD CONSTRAINT review_queue_items_source_check CHECK (source IN ('traces', 'filter', 'experiment', 'monitor', 'threads'));

CREATE TABLE thread_reviews (
  id          text PRIMARY KEY,
  project_id  text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  thread_id   text NOT NULL,
  comment     text NOT NULL DEFAULT '',
  user_id     text REFERENCES users (id) ON DELETE SET NULL,
  email       text,
  -- The turns the reviewer saw (the thread as it was when scored), oldest first.
  trace_ids   text[] NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX thread_reviews_thread ON thread_reviews (project_id, thread_id, created_at);

CREATE TABLE thread_review_scores (
  id             text PRIMARY KEY,
  project_id     text NOT NULL,
  review_id      text NOT NULL REFERENCES thread_reviews (id) ON DELETE CASCADE,
  thread_id      text NOT NULL,
  config_id      text NOT NULL REFERENCES score_configs (id) ON DELETE CASCADE,
  number_value   double precision,
  text_value     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (review_id, config_id)
);
CREATE INDEX thread_review_scores_thread ON thread_review_scores (project_id, thread_id);
CREATE INDEX thread_review_scores_config ON thread_review_scores (config_id, created_at);
