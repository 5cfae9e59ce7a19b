import { bigint, boolean, doublePrecision, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** The alerts module's tables. Mirror migrations/0039_alerts.sql (and 0040, 0041); only alerts/store.ts touches them. */
export const alertRules = pgTable('alert_rules', {
  id: text('id').primaryKey(),
  organizationId: text('organization_id').notNull(),
  projectId: text('project_id').notNull(),
  name: text('name').notNull(),
  metric: jsonb('metric').$type<Record<string, unknown>>().notNull(),
  filters: jsonb('filters').$type<Record<string, unknown>>(),
  splitBy: text('split_by'),
  windowMs: bigint('window_ms', { mode: 'number' }).notNull(),
  condition: jsonb('condition').$type<Record<string, unknown>>().notNull(),
  resolveAfter: integer('resolve_after').notNull().default(2),
  enabled: boolean('enabled').notNull().default(true),
  muted: boolean('muted').notNull().default(false),
  snoozedUntil: bigint('snoozed_until', { mode: 'number' }),
  acknowledgedAt: bigint('acknowledged_at', { mode: 'number' }),
  evaluatedThrough: bigint('evaluated_through', { mode: 'number' }).notNull(),
  channelIds: jsonb('channel_ids').$type<string[]>(),
  segmentStates: jsonb('segment_states').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});

export const alertWindows = pgTable(
  'alert_windows',
  {
    ruleId: text('rule_id').notNull(),
    windowEnd: bigint('window_end', { mode: 'number' }).notNull(),
    evaluatedAt: bigint('evaluated_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.windowEnd] })],
);

export const alertEvaluations = pgTable(
  'alert_evaluations',
  {
    ruleId: text('rule_id').notNull(),
    windowEnd: bigint('window_end', { mode: 'number' }).notNull(),
    segment: text('segment').notNull(),
    windowStart: bigint('window_start', { mode: 'number' }).notNull(),
    value: doublePrecision('value'),
    baseline: doublePrecision('baseline'),
    count: doublePrecision('count').notNull(),
    baselineCount: doublePrecision('baseline_count'),
    low: doublePrecision('low'),
    high: doublePrecision('high'),
    pValue: doublePrecision('p_value'),
    decision: text('decision').notNull(),
    state: text('state').notNull(),
    segmentsLeftOut: integer('segments_left_out').notNull().default(0),
    held: text('held'),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.windowEnd, t.segment] })],
);

/** Mirrors migrations/0040_alert_channels.sql; only alerts/store.ts touches it. */
export const alertChannels = pgTable('alert_channels', {
  id: text('id').primaryKey(),
  organizationId: text('organization_id').notNull(),
  projectId: text('project_id').notNull(),
  name: text('name').notNull(),
  kind: text('kind').notNull(),
  target: text('target').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
});

export const alertDeliveries = pgTable('alert_deliveries', {
  id: text('id').primaryKey(),
  ruleId: text('rule_id'),
    channelId: text('channel_id').notNull(),
  projectId: text('project_id').notNull(),
  eventType: text('event_type').notNull(),
  subject: text('subject').notNull(),
  message: text('message').notNull(),
  link: text('link'),
  status: text('status').notNull(),
  attempts: integer('attempts').notNull().default(0),
  lastError: text('last_error'),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  sentAt: bigint('sent_at', { mode: 'number' }),
});

/** Mirrors migrations/0042_alert_reports.sql; only alerts/report-store.ts touches them. */
export const alertReports = pgTable('alert_reports', {
  id: text('id').primaryKey(),
  organizationId: text('organization_id').notNull(),
  projectId: text('project_id').notNull(),
  name: text('name').notNull(),
  cadence: text('cadence').notNull(),
  timeZone: text('time_zone').notNull(),
  sendHour: integer('send_hour').notNull(),
  channelIds: jsonb('channel_ids').$type<string[]>().notNull().default([]),
  webhooks: boolean('webhooks').notNull().default(false),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});

export const alertReportPeriods = pgTable(
  'alert_report_periods',
  {
    reportId: text('report_id').notNull(),
    periodEnd: bigint('period_end', { mode: 'number' }).notNull(),
    periodStart: bigint('period_start', { mode: 'number' }).notNull(),
    sentAt: bigint('sent_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.periodEnd] })],
);
