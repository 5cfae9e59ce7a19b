-- Organizations, users, memberships, projects, API keys.
CREATE TABLE organizations (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id             text PRIMARY KEY,
  email          text NOT NULL,
  name           text,
  password_hash  text,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE memberships (
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id          text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role             text NOT NULL CHECK (role IN ('ADMIN', 'MEMBER', 'VIEWER')),
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

CREATE TABLE projects (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name             text NOT NULL,
  retention_days   integer CHECK (retention_days IS NULL OR retention_days > 0),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_organization ON projects (organization_id);

-- id is the public 16-character id inside the token; only a keyed hash of the secret is kept.
CREATE TABLE api_keys (
  id                  text PRIMARY KEY,
  organization_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  project_id          text REFERENCES projects (id) ON DELETE CASCADE,
  key_type            text NOT NULL CHECK (key_type IN ('project', 'personal', 'service')),
  name                text NOT NULL,
  description         text,
  owner_user_id       text REFERENCES users (id) ON DELETE CASCADE,
  created_by_user_id  text REFERENCES users (id) ON DELETE SET NULL,
  permission_mode     text NOT NULL DEFAULT 'all' CHECK (permission_mode IN ('all', 'readonly', 'restricted')),
  permissions         jsonb NOT NULL DEFAULT '[]',
  secret_hash         text NOT NULL,
  expires_at          timestamptz,
  revoked_at          timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  CHECK ((key_type = 'project') = (project_id IS NOT NULL)),
  CHECK (key_type <> 'personal' OR owner_user_id IS NOT NULL)
);
CREATE INDEX api_keys_organization ON api_keys (organization_id, created_at);
CREATE INDEX api_keys_project ON api_keys (project_id) WHERE project_id IS NOT NULL;

CREATE TABLE api_key_bindings (
  api_key_id  text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  role        text NOT NULL CHECK (role IN ('ADMIN', 'MEMBER', 'VIEWER', 'CUSTOM')),
  scope_type  text NOT NULL CHECK (scope_type IN ('ORGANIZATION', 'PROJECT')),
  scope_id    text NOT NULL,
  PRIMARY KEY (api_key_id, scope_type, scope_id)
);
CREATE INDEX api_key_bindings_scope ON api_key_bindings (scope_type, scope_id);
