-- Prompts with immutable versions and movable tags; annotations on traces; the encrypted agent cache.

-- A PROJECT prompt belongs to project_id. An ORGANIZATION prompt belongs to the
-- organization and is listed in all its projects; project_id then records the project it
-- was created from and is cleared (not cascaded) when that project goes.
CREATE TABLE prompts (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  project_id       text REFERENCES projects (id) ON DELETE SET NULL,
  scope            text NOT NULL CHECK (scope IN ('ORGANIZATION', 'PROJECT')),
  handle           text NOT NULL,
  name             text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CHECK (scope = 'ORGANIZATION' OR project_id IS NOT NULL)
);
-- A PROJECT prompt whose project is deleted is removed with it (SET NULL above would orphan it).
CREATE FUNCTION prompts_drop_orphans() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM prompts WHERE project_id = OLD.id AND scope = 'PROJECT';
  RETURN OLD;
END $$;
CREATE TRIGGER projects_drop_prompts BEFORE DELETE ON projects
  FOR EACH ROW EXECUTE FUNCTION prompts_drop_orphans();
-- Handles are unique per scope: per project for PROJECT, per organization for ORGANIZATION.
CREATE UNIQUE INDEX prompts_project_handle ON prompts (project_id, handle) WHERE scope = 'PROJECT';
CREATE UNIQUE INDEX prompts_organization_handle ON prompts (organization_id, handle) WHERE scope = 'ORGANIZATION';
CREATE INDEX prompts_organization ON prompts (organization_id, updated_at);

CREATE TABLE prompt_versions (
  id              text PRIMARY KEY,
  prompt_id       text NOT NULL REFERENCES prompts (id) ON DELETE CASCADE,
  version         integer NOT NULL CHECK (version > 0),
  author_id       text,
  commit_message  text,
  model           text NOT NULL,
  prompt          text NOT NULL,
  messages        jsonb NOT NULL,
  inputs          jsonb NOT NULL,
  outputs         jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (prompt_id, version)
);

-- A tag (production, staging, or custom) points at one version of its prompt.
CREATE TABLE prompt_tags (
  prompt_id   text NOT NULL REFERENCES prompts (id) ON DELETE CASCADE,
  tag         text NOT NULL,
  version_id  text NOT NULL REFERENCES prompt_versions (id) ON DELETE CASCADE,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (prompt_id, tag)
);

-- No foreign key to traces: an annotation may arrive before its trace (exporters batch
-- spans for seconds) and must be kept; it shows on the trace once the trace lands.
CREATE TABLE annotations (
  id            text PRIMARY KEY,
  project_id    text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  trace_id      text NOT NULL,
  comment       text NOT NULL,
  is_thumbs_up  boolean NOT NULL,
  email         text,
  user_id       text REFERENCES users (id) ON DELETE SET NULL,
  anchor_kind   text CHECK (anchor_kind IN ('span', 'field', 'attribute', 'message')),
  anchor_id     text,
  anchor_path   text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CHECK (anchor_kind IS NOT NULL OR (anchor_id IS NULL AND anchor_path IS NULL))
);
CREATE INDEX annotations_trace ON annotations (project_id, trace_id, created_at);
CREATE INDEX annotations_project ON annotations (project_id, created_at);

-- Values are sealed (envelope AES-256-GCM, see src/platform/crypto.ts) before they reach
-- this table; key_id names the master key that wrapped the value's data key.
CREATE TABLE agent_cache_entries (
  project_id  text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name        text NOT NULL,
  key_id      text NOT NULL,
  sealed      text NOT NULL,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, name)
);
CREATE INDEX agent_cache_entries_expires ON agent_cache_entries (expires_at);
