-- Signing in to the web app: browser sessions (the spyglass_session cookie), invitation
-- and password-reset links, and sign-in attempt counters. Tokens are kept only as keyed
-- hashes (HMAC-SHA256 with the token-hash key); the hash finds the row.
CREATE TABLE user_sessions (
  id               text PRIMARY KEY,
  user_id          text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The active organization: the session acts with the user's role there.
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  token_hash       text NOT NULL UNIQUE,
  user_agent       text,
  ip_address       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  -- Written at most once a minute; the idle limit counts from it.
  last_seen_at     timestamptz NOT NULL,
  -- The absolute limit.
  expires_at       timestamptz NOT NULL,
  revoked_at       timestamptz
);
CREATE INDEX user_sessions_user ON user_sessions (user_id, created_at);
CREATE INDEX user_sessions_expires ON user_sessions (expires_at);

-- Adding a member who has no password yet gives a one-time link to set it.
CREATE TABLE invitations (
  id                  text PRIMARY KEY,
  organization_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id             text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash          text NOT NULL UNIQUE,
  invited_by_user_id  text REFERENCES users (id) ON DELETE SET NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  expires_at          timestamptz NOT NULL,
  accepted_at         timestamptz,
  revoked_at          timestamptz
);
CREATE INDEX invitations_organization ON invitations (organization_id, created_at);
CREATE INDEX invitations_user ON invitations (user_id);

-- One-time links to set a new password: issued by an organization admin, or by the
-- server's operator (`spyglass users reset-password`, organization_id null).
CREATE TABLE password_resets (
  id                  text PRIMARY KEY,
  user_id             text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  organization_id     text REFERENCES organizations (id) ON DELETE CASCADE,
  token_hash          text NOT NULL UNIQUE,
  created_by_user_id  text REFERENCES users (id) ON DELETE SET NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  expires_at          timestamptz NOT NULL,
  used_at             timestamptz
);
CREATE INDEX password_resets_user ON password_resets (user_id);

-- Sign-in attempts per account (keyed hash of the e-mail) and per client address, in
-- fixed windows; in the database so that every process on one PostgreSQL counts together.
CREATE TABLE auth_throttle (
  key                text PRIMARY KEY,
  window_started_at  timestamptz NOT NULL,
  attempts           integer NOT NULL
);
