-- Human review. Score configs and the scores annotations carry (the annotations module's
-- tables), and annotation queues with their items (the review module's tables).

-- What a reviewer scores: a number within a range, yes/no, or one of named categories.
CREATE TABLE score_configs (
  id           text PRIMARY KEY,
  project_id   text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name         text NOT NULL,
  description  text,
  kind         text NOT NULL CHECK (kind IN ('numeric', 'boolean', 'categorical')),
  min_value    double precision,
  max_value    double precision,
  categories   text[] NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, name)
);

-- One score of an annotation. `number_value` is the numeric value (booleans 1 and 0) so a
-- list sorts and filters by it; `text_value` is a category (and true/false for booleans).
CREATE TABLE annotation_scores (
  id             text PRIMARY KEY,
  project_id     text NOT NULL,
  annotation_id  text NOT NULL REFERENCES annotations (id) ON DELETE CASCADE,
  trace_id       text NOT NULL,
  config_id      text NOT NULL REFERENCES score_configs (id) ON DELETE CASCADE,
  number_value   double precision,
  text_value     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (annotation_id, config_id)
);
CREATE INDEX annotation_scores_trace ON annotation_scores (project_id, trace_id);
CREATE INDEX annotation_scores_config ON annotation_scores (config_id, created_at);

CREATE TABLE review_queues (
  id                text PRIMARY KEY,
  project_id        text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name              text NOT NULL,
  description       text,
  score_config_ids  text[] NOT NULL DEFAULT '{}',
  member_user_ids   text[] NOT NULL DEFAULT '{}',
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, name)
);

-- A trace (span_id '') or one span to review. A pending item is claimed by one reviewer
-- at a time: claimed_by and claim_expires_at live here, so claims survive a restart and
-- lapse by themselves.
CREATE TABLE review_queue_items (
  id                text PRIMARY KEY,
  queue_id          text NOT NULL REFERENCES review_queues (id) ON DELETE CASCADE,
  project_id        text NOT NULL,
  seq               bigserial NOT NULL,
  trace_id          text NOT NULL,
  span_id           text NOT NULL DEFAULT '',
  source            text NOT NULL CHECK (source IN ('traces', 'filter', 'experiment', 'monitor')),
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'skipped')),
  claimed_by        text,
  claim_expires_at  timestamptz,
  done_by           text,
  done_at           timestamptz,
  annotation_id     text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (queue_id, trace_id, span_id)
);
CREATE INDEX review_queue_items_next ON review_queue_items (queue_id, status, seq);

-- A monitor may send the traces its evaluator fails into a queue.
ALTER TABLE monitors ADD COLUMN review_queue_id text REFERENCES review_queues (id) ON DELETE SET NULL;
