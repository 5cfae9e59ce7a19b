-- Model providers set in the app (per project, or for every project of an organization) and
-- evaluators people write themselves, with their versions.

CREATE TABLE model_providers (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- null: every project of the organization may use it (a project's own provider of the same name wins).
  project_id       text REFERENCES projects (id) ON DELETE CASCADE,
  -- The provider part of a model name "<name>/<model>".
  name             text NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('openai', 'openai_compatible', 'azure_openai', 'anthropic')),
  base_url         text,
  models           text[] NOT NULL DEFAULT '{}',
  -- The API key, sealed with the installation's keyring (src/platform/crypto.ts); only its
  -- last four characters are ever shown.
  key_id           text NOT NULL,
  key_sealed       text NOT NULL,
  key_last4        text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX model_providers_project_name ON model_providers (project_id, name) WHERE project_id IS NOT NULL;
CREATE UNIQUE INDEX model_providers_organization_name ON model_providers (organization_id, name) WHERE project_id IS NULL;

CREATE TABLE custom_evaluators (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  project_id       text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  slug             text NOT NULL,
  name             text NOT NULL,
  description      text,
  latest_version   integer NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX custom_evaluators_project_slug ON custom_evaluators (project_id, slug);

CREATE TABLE custom_evaluator_versions (
  evaluator_id     text NOT NULL REFERENCES custom_evaluators (id) ON DELETE CASCADE,
  project_id       text NOT NULL,
  version          integer NOT NULL,
  config           jsonb NOT NULL,
  commit_message   text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (evaluator_id, version)
);

-- The version of a custom evaluator that produced a result (null for built-in evaluators).
ALTER TABLE evaluations ADD COLUMN evaluator_version integer;
