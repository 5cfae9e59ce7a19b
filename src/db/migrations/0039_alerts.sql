-- Alert rules (the alerts module's): a metric of the project's traces watched window by window.
CREATE TABLE alert_rules (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  project_id text NOT NULL,
  name text NOT NULL,
  -- {kind, evaluator?, configId?, category?}: what is measured (docs/alerts.md: Metrics).
  metric jsonb NOT NULL,
  filters jsonb,
  split_by text,
  window_ms bigint NOT NULL,
  -- {kind: threshold, ...} or {kind: change, ...}.
  condition jsonb NOT NULL,
  -- Consecutive calm windows before a firing segment resolves (hysteresis).
  resolve_after int NOT NULL DEFAULT 2,
  enabled boolean NOT NULL DEFAULT true,
  muted boolean NOT NULL DEFAULT false,
  snoozed_until bigint,
  acknowledged_at bigint,
  -- The end of the last window evaluated: the evaluator resumes from here after downtime.
  evaluated_through bigint NOT NULL,
  -- Per segment ('' without a split): {state, since, breaches, calm}.
  segment_states jsonb NOT NULL DEFAULT '{}',
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX alert_rules_project ON alert_rules (project_id, created_at);
CREATE INDEX alert_rules_due ON alert_rules ((evaluated_through + window_ms)) WHERE enabled;

-- One row per rule window evaluated: the claim that makes each window evaluated exactly once
-- across processes (the primary key), written with its evaluations in one transaction.
CREATE TABLE alert_windows (
  rule_id text NOT NULL REFERENCES alert_rules(id) ON DELETE CASCADE,
  window_end bigint NOT NULL,
  evaluated_at bigint NOT NULL,
  PRIMARY KEY (rule_id, window_end)
);

-- What each evaluation saw, per segment: the history explains each fire and each silence.
CREATE TABLE alert_evaluations (
  rule_id text NOT NULL REFERENCES alert_rules(id) ON DELETE CASCADE,
  window_end bigint NOT NULL,
  segment text NOT NULL,
  window_start bigint NOT NULL,
  value double precision,
  baseline double precision,
  count double precision NOT NULL,
  baseline_count double precision,
  low double precision,
  high double precision,
  p_value double precision,
  decision text NOT NULL,
  state text NOT NULL,
  PRIMARY KEY (rule_id, window_end, segment)
);
