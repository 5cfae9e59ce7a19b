-- A window's segments past the cap (1,000) are not decided: the history says how many were left out.
ALTER TABLE alert_evaluations ADD COLUMN segments_left_out int NOT NULL DEFAULT 0;

-- Reports (the alerts module's): a daily or weekly digest of a project, in the reader's time
-- zone, sent to chosen channels and, when asked, to the project's signed webhooks.
CREATE TABLE alert_reports (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  project_id text NOT NULL,
  name text NOT NULL,
  cadence text NOT NULL CHECK (cadence IN ('daily', 'weekly')),
  -- IANA time zone the periods are days (weeks from Monday) of.
  time_zone text NOT NULL,
  -- Local hour (0..23) after a period's end the digest is sent.
  send_hour int NOT NULL,
  -- Alert channel ids ([] for none).
  channel_ids jsonb NOT NULL DEFAULT '[]',
  webhooks boolean NOT NULL DEFAULT false,
  enabled boolean NOT NULL DEFAULT true,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX alert_reports_project ON alert_reports (project_id, created_at);

-- One row per report period sent: the claim that sends each period exactly once across
-- processes (the primary key), written with its deliveries in one transaction.
CREATE TABLE alert_report_periods (
  report_id text NOT NULL REFERENCES alert_reports(id) ON DELETE CASCADE,
  period_end bigint NOT NULL,
  period_start bigint NOT NULL,
  sent_at bigint NOT NULL,
  PRIMARY KEY (report_id, period_end)
);
