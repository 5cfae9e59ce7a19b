-- Webhooks: endpoints, the dispatcher's cursor over the outbox, batches (dispatches) and
-- the attempt log.

-- The outbox's fan-out must never skip an event whose transaction commits late: a bigserial
-- is taken at INSERT but becomes visible at COMMIT, so "seq > last seen seq" alone loses
-- events that commit out of order. Each event records its writer's transaction id; the
-- dispatcher only reads events of transactions older than every transaction still running
-- (pg_snapshot_xmin), which can no longer change, in (txid, seq) order.
ALTER TABLE events ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX events_txid_seq ON events (txid, seq);

CREATE TABLE webhook_endpoints (
  id                          text PRIMARY KEY,
  organization_id             text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  project_id                  text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  url                         text NOT NULL,
  description                 text,
  enabled_events              text[] NOT NULL,
  max_batch_size              integer NOT NULL CHECK (max_batch_size BETWEEN 1 AND 500),
  max_batch_delay_ms          integer NOT NULL CHECK (max_batch_delay_ms BETWEEN 0 AND 300000),
  -- Organization-level events (project_id null, e.g. organization API keys) reach an
  -- endpoint only when an organization admin set its URL.
  receives_organization_events boolean NOT NULL DEFAULT false,
  enabled                     boolean NOT NULL DEFAULT true,
  disabled_reason             text,
  disabled_at                 timestamptz,
  -- First failed attempt since the last success; 72 hours of failures disable the endpoint.
  failing_since               timestamptz,
  last_success_at             timestamptz,
  -- The signing secret, sealed with the installation's keyring (src/platform/crypto.ts).
  secret_key_id               text NOT NULL,
  secret_sealed               text NOT NULL,
  -- After roll-secret the old secret still signs (a second signature) until this time.
  previous_secret_key_id      text,
  previous_secret_sealed      text,
  previous_secret_expires_at  timestamptz,
  -- Events of transactions after this one reach the endpoint; earlier ones (not yet fanned
  -- out when the endpoint was made) do not.
  created_txid                xid8 NOT NULL DEFAULT pg_current_xact_id(),
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_project ON webhook_endpoints (project_id, created_at DESC);
CREATE INDEX webhook_endpoints_organization ON webhook_endpoints (organization_id) WHERE receives_organization_events;

-- How far the dispatcher has fanned out the outbox: one row, locked while fanning out.
CREATE TABLE webhook_outbox_cursor (
  id          smallint PRIMARY KEY CHECK (id = 1),
  last_txid   xid8 NOT NULL,
  last_seq    bigint NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
-- Events written before this migration were never subscribed to: start after them.
INSERT INTO webhook_outbox_cursor (id, last_txid, last_seq)
SELECT 1, COALESCE(max(txid), '0'::xid8), COALESCE(max(seq), 0) FROM events;

-- A batch of events for one endpoint; its id is the webhook-id of every attempt.
-- status: open (still taking events until due), sending (claimed by a process until
-- claimed_until), retrying (waiting for next_attempt_at), delivered, failed.
CREATE TABLE webhook_dispatches (
  id               text PRIMARY KEY,
  endpoint_id      text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  status           text NOT NULL CHECK (status IN ('open', 'sending', 'retrying', 'delivered', 'failed')),
  events           jsonb NOT NULL DEFAULT '[]',
  event_count      integer NOT NULL DEFAULT 0,
  -- The exact bytes sent, fixed at the first attempt so every retry signs the same body.
  payload          text,
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL,
  claimed_until    timestamptz,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
CREATE INDEX webhook_dispatches_due ON webhook_dispatches (next_attempt_at) WHERE status IN ('open', 'retrying');
CREATE INDEX webhook_dispatches_lease ON webhook_dispatches (claimed_until) WHERE status = 'sending';
CREATE INDEX webhook_dispatches_open ON webhook_dispatches (endpoint_id) WHERE status = 'open';
CREATE INDEX webhook_dispatches_finished ON webhook_dispatches (updated_at) WHERE status IN ('delivered', 'failed');

-- Every attempt, newest first by seq. Kept 30 days.
CREATE TABLE webhook_delivery_attempts (
  seq              bigserial PRIMARY KEY,
  id               text NOT NULL UNIQUE,
  endpoint_id      text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  dispatch_id      text NOT NULL,
  attempt          integer NOT NULL,
  event_count      integer NOT NULL,
  response_status  integer,
  latency_ms       integer NOT NULL,
  error            text,
  outcome          text NOT NULL CHECK (outcome IN ('delivered', 'retrying', 'failed')),
  next_attempt_at  timestamptz,
  fired_at         timestamptz NOT NULL
);
CREATE INDEX webhook_delivery_attempts_endpoint ON webhook_delivery_attempts (endpoint_id, seq DESC);
CREATE INDEX webhook_delivery_attempts_fired ON webhook_delivery_attempts (fired_at);
