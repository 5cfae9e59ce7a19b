-- Where a project's alerts go besides its signed webhooks: e-mail over SMTP, or a
-- Slack-compatible incoming webhook. The alerts module's tables.
CREATE TABLE alert_channels (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  project_id text NOT NULL,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('email', 'slack')),
  -- An e-mail address, or the incoming-webhook URL.
  target text NOT NULL,
  created_at bigint NOT NULL
);
CREATE INDEX alert_channels_project ON alert_channels (project_id, created_at);

-- Every message to a channel: written with the evaluation that caused it, sent by a job
-- (retried with backoff), and kept with its outcome: the delivery log.
CREATE TABLE alert_deliveries (
  id text PRIMARY KEY,
  channel_id text NOT NULL REFERENCES alert_channels(id) ON DELETE CASCADE,
  project_id text NOT NULL,
  event_type text NOT NULL,
  subject text NOT NULL,
  message text NOT NULL,
  link text,
  status text NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
  attempts int NOT NULL DEFAULT 0,
  last_error text,
  created_at bigint NOT NULL,
  sent_at bigint
);
CREATE INDEX alert_deliveries_channel ON alert_deliveries (channel_id, created_at DESC);
