import { z } from 'zod';
// schemas.ts to schemas.ts: the web app imports these without pulling in any service code.
import { searchRequestSchema } from '../traces/schemas.ts';

/**
 * What a rule can watch. `family` decides which test a change condition uses
 * (statistics.ts): rates the two-proportion test, counts the Poisson test, values (latency,
 * first-token time, cost, tokens, scores) the rank test on one value per trace (or per
 * evaluation). `source`: where a window's numbers come from (measure.ts). `unit`: what a
 * threshold's value is in.
 */
export const METRICS = {
  trace_count: { family: 'count', label: 'Traces', direction: 'either', source: 'sums', unit: 'traces' },
  error_rate: { family: 'rate', label: 'Error rate', direction: 'up', source: 'sums', unit: 'share' },
  thumbs_down_rate: { family: 'rate', label: 'Thumbs-down rate', direction: 'up', source: 'sums', unit: 'share' },
  latency_p50: { family: 'value', label: 'Latency p50 (ms)', direction: 'up', source: 'latency', unit: 'ms' },
  latency_p95: { family: 'value', label: 'Latency p95 (ms)', direction: 'up', source: 'latency', unit: 'ms' },
  latency_p99: { family: 'value', label: 'Latency p99 (ms)', direction: 'up', source: 'latency', unit: 'ms' },
  first_token_p50: { family: 'value', label: 'First-token time p50 (ms)', direction: 'up', source: 'first_token', unit: 'ms' },
  first_token_p95: { family: 'value', label: 'First-token time p95 (ms)', direction: 'up', source: 'first_token', unit: 'ms' },
  evaluator_pass_rate: { family: 'rate', label: 'Pass rate', direction: 'down', source: 'evaluations', unit: 'share' },
  evaluator_score_mean: { family: 'value', label: 'Mean evaluator score', direction: 'down', source: 'evaluations', unit: 'score' },
  evaluator_error_rate: { family: 'rate', label: 'Evaluator error rate', direction: 'up', source: 'evaluations', unit: 'share' },
  thread_pass_rate: { family: 'rate', label: 'Thread pass rate', direction: 'down', source: 'thread_evaluations', unit: 'share' },
  thread_score_mean: { family: 'value', label: 'Mean thread score', direction: 'down', source: 'thread_evaluations', unit: 'score' },
  score_mean: { family: 'value', label: 'Mean score', direction: 'down', source: 'scores', unit: 'score' },
  category_share: { family: 'rate', label: 'Category share', direction: 'up', source: 'scores', unit: 'share' },
  cost_total: { family: 'value', label: 'Cost (USD)', direction: 'up', source: 'cost', unit: 'usd' },
  cost_per_trace: { family: 'value', label: 'Cost per trace (USD)', direction: 'up', source: 'cost', unit: 'usd' },
  tokens_total: { family: 'value', label: 'Tokens', direction: 'up', source: 'tokens', unit: 'tokens' },
} as const satisfies Record<
  string,
  {
    family: 'count' | 'rate' | 'value';
    label: string;
    direction: 'up' | 'down' | 'either';
    source: 'sums' | 'latency' | 'first_token' | 'cost' | 'tokens' | 'evaluations' | 'thread_evaluations' | 'scores';
    unit: 'traces' | 'share' | 'ms' | 'score' | 'usd' | 'tokens';
  }
>;
export type MetricKind = keyof typeof METRICS;
export const METRIC_KINDS = Object.keys(METRICS) as [MetricKind, ...MetricKind[]];

/** customer: the trace's customer_id; prompt: handle:version of the prompt a trace ran; evaluator: the evaluation's name (evaluator metrics only); topic: the trace's topic id (GET /api/topics). */
export const SEGMENTS = ['model', 'label', 'user', 'customer', 'prompt', 'evaluator', 'topic'] as const;
export type Segment = (typeof SEGMENTS)[number];
export const MIN_WINDOW_MINUTES = 5;
export const MAX_WINDOW_MINUTES = 7 * 24 * 60;

export const metricSchema = z
  .strictObject({
    kind: z.enum(METRIC_KINDS).describe('What is measured in each window'),
    evaluator: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("evaluator_*, thread_*: the evaluation's name (a monitor's or thread monitor's name) or evaluator path; optional when split by evaluator (then every evaluator)"),
    configId: z.string().min(1).max(128).optional().describe('score_mean, category_share: the score config'),
    category: z.string().min(1).max(100).optional().describe('category_share: the category counted'),
    requireTrusted: z
      .boolean()
      .optional()
      .describe("evaluator_pass_rate, evaluator_score_mean with an evaluator: the rule fires only while that judge is trusted (its agreement with people meets the project's trust rule); held windows say why in the history"),
  })
  .meta({ id: 'AlertMetric' });

const direction = z.enum(['up', 'down', 'either']);

export const thresholdConditionSchema = z.strictObject({
  kind: z.literal('threshold'),
  operator: z.enum(['above', 'below']),
  value: z.number().describe('Rates are 0..1; latencies in ms; counts, costs (USD) and tokens are totals over the window (cost_per_trace: per trace)'),
  consecutive: z.number().int().min(1).max(100).default(1).describe('Windows in a row past the value before the rule fires'),
  minCount: z.number().int().min(0).max(1_000_000_000).default(1).describe('Events (traces, verdicts, scores) a window needs before it may fire'),
});

export const baselineSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('previous') }).describe('The window before'),
  z.strictObject({ kind: z.literal('week') }).describe('The same window 7 days earlier'),
  z
    .strictObject({ kind: z.literal('reference'), start: z.number().int().nonnegative(), end: z.number().int().nonnegative() })
    .describe('A chosen period (epoch ms), e.g. a healthy week'),
]);

export const changeConditionSchema = z.strictObject({
  kind: z.literal('change'),
  direction: direction.optional().describe("Which move fires: default the metric's bad direction (error rate up, pass rate down, traffic either way)"),
  baseline: baselineSchema.default({ kind: 'previous' }),
  alpha: z.number().gt(0).max(0.5).default(0.01).describe('False-alarm budget per window, corrected across segments (Benjamini-Hochberg)'),
  consecutive: z.number().int().min(1).max(100).default(1),
  minCount: z.number().int().min(0).max(1_000_000_000).default(1),
});

export const conditionSchema = z.discriminatedUnion('kind', [thresholdConditionSchema, changeConditionSchema]);

export const createRuleBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    metric: metricSchema,
    filters: searchRequestSchema.shape.filters.describe('The trace filter: only matching traces count'),
    splitBy: z
      .enum(SEGMENTS)
      .nullable()
      .default(null)
      .describe('One decision per segment, all of them up to 1,000 a window (those with most events; the history says how many were left out), corrected together'),
    windowMinutes: z.number().int().describe(`Window length, ${MIN_WINDOW_MINUTES} minutes to 7 days; windows are aligned to multiples of it since 1970 UTC`),
    condition: conditionSchema,
    resolveAfter: z.number().int().min(1).max(100).default(2).describe('Calm windows in a row before a firing rule resolves'),
    enabled: z.boolean().default(true),
    channels: z
      .array(z.string().min(1).max(100))
      .max(50)
      .nullable()
      .default(null)
      .describe("The alert channels notified (ids); null: every channel of the project; []: none (the project's webhooks still get the events)"),
  })
  .meta({ id: 'CreateAlertRule' });
export type CreateRuleBody = z.output<typeof createRuleBody>;

export const updateRuleBody = z
  .strictObject({
    name: createRuleBody.shape.name.optional(),
    enabled: z.boolean().optional(),
    muted: z.boolean().optional().describe('A muted rule is evaluated but notifies no one'),
    snoozedUntil: z.number().int().nonnegative().nullable().optional().describe('No notifications until then (epoch ms); null: not snoozed'),
  })
  .meta({ id: 'UpdateAlertRule' });
export type UpdateRuleBody = z.output<typeof updateRuleBody>;

export const ALERT_STATES = ['ok', 'firing', 'resolved'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

export const segmentStateSchema = z.object({
  segment: z.string().describe("'' without a split"),
  state: z.enum(ALERT_STATES),
  since: z.number().int().nullable().describe('When the state began (the end of the window that changed it)'),
});

export const ruleSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    metric: metricSchema,
    filters: z.record(z.string(), z.unknown()).nullable(),
    splitBy: z.enum(SEGMENTS).nullable(),
    windowMinutes: z.number().int(),
    condition: z.record(z.string(), z.unknown()).describe('The condition with its defaults filled in'),
    resolveAfter: z.number().int(),
    enabled: z.boolean(),
    channels: z.array(z.string()).nullable().describe('The alert channels notified; null: every channel of the project'),
    muted: z.boolean(),
    snoozedUntil: z.number().int().nullable(),
    acknowledgedAt: z.number().int().nullable(),
    state: z.enum(ALERT_STATES).describe('firing when any segment fires'),
    segments: z.array(segmentStateSchema),
    judge: z
      .object({
        evaluator: z.string(),
        state: z.enum(['trusted', 'not trusted', 'not enough labels']),
        reason: z.string(),
        scoreConfig: z.string().nullable().describe('The human score config it was measured against (the one with most labels)'),
        holding: z.boolean().describe('The rule requires a trusted judge and this one is not: its windows are held back'),
      })
      .nullable()
      .describe("The judge behind an evaluator pass rate or mean score, and whether it can be trusted; null for other metrics"),
    evaluatedThrough: z.number().int().describe('The end of the last window evaluated (epoch ms)'),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .meta({ id: 'AlertRule' });
export type RuleView = z.output<typeof ruleSchema>;

export const evaluationSchema = z
  .object({
    windowStart: z.number().int(),
    windowEnd: z.number().int(),
    segment: z.string(),
    value: z.number().nullable().describe('The metric in the window; null without events'),
    baseline: z.number().nullable().describe('change: the metric in the baseline'),
    count: z.number().describe('Events in the window (traces, verdicts, scores)'),
    baselineCount: z.number().nullable(),
    low: z.number().nullable().describe('95 % interval of the value'),
    high: z.number().nullable(),
    pValue: z.number().nullable().describe('change: adjusted across segments (Benjamini-Hochberg)'),
    decision: z.enum(['breach', 'calm', 'too_few', 'held']).describe('held: past the condition, but held back because the judge was not trusted'),
    state: z.enum(ALERT_STATES).describe('The segment state after this window'),
    segmentsLeftOut: z.number().int().describe('Segments of this window past the cap of 1,000, not decided (0: every one was)'),
    held: z.string().nullable().describe('Why the window could not fire (the rule requires a trusted judge and it was not); null: decided as usual'),
  })
  .meta({ id: 'AlertEvaluation' });
export type EvaluationView = z.output<typeof evaluationSchema>;

export const previewResponse = z
  .object({
    from: z.number().int().describe('The start of the first window replayed (epoch ms): about 30 days ago'),
    to: z.number().int().describe('The end of the last window replayed: the last one that has ended'),
    windowMinutes: z.number().int(),
    fired: z.number().int().describe('The times the rule would have fired (a segment going to firing)'),
    fires: z.array(evaluationSchema).describe('The window and segment of each of those times'),
    held: z
      .string()
      .nullable()
      .describe("Why the replay was held back: the rule requires a trusted judge and its judge is not trusted now, so windows past the condition are 'held', never fired (as the scheduler decides them); null: decided as usual"),
    heldWindows: z.number().int().describe('Windows with a segment past the condition but held back (0 unless held)'),
    windows: z
      .array(
        evaluationSchema.extend({
          segments: z.number().int().describe('Segments decided in the window'),
          breaches: z.number().int().describe('Of them, those past the condition that counted (fired or go toward firing)'),
          holds: z.number().int().describe('Of them, those past the condition but held back (the judge was not trusted)'),
        }),
      )
      .describe('Each window, oldest first, with the numbers of its segment nearest to firing (the only one without a split)'),
  })
  .meta({ id: 'AlertRulePreview' });
export type PreviewView = z.output<typeof previewResponse>;

export const historyQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  before: z.coerce.number().int().optional().describe('Windows ending before this (epoch ms): the next page'),
});
export const historyResponse = z.object({ data: z.array(evaluationSchema) }).meta({ id: 'AlertHistory' });

export const channelBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    kind: z.enum(['email', 'slack']).describe('email: over the server\'s SMTP (SMTP_URL); slack: a Slack-compatible incoming webhook'),
    target: z.string().trim().min(3).max(2000).describe('The e-mail address, or the incoming-webhook URL'),
  })
  .meta({ id: 'AlertChannelBody' });
export type ChannelBody = z.output<typeof channelBody>;

export const channelSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(['email', 'slack']),
    target: z.string().describe('The address; a webhook URL without its secret path'),
    createdAt: z.number().int(),
  })
  .meta({ id: 'AlertChannel' });
export type ChannelView = z.output<typeof channelSchema>;

export const deliverySchema = z
  .object({
    id: z.string(),
    eventType: z.string(),
    subject: z.string(),
    status: z.enum(['pending', 'sent', 'failed']).describe('pending: retried with backoff; failed: after the last attempt'),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    createdAt: z.number().int(),
    sentAt: z.number().int().nullable(),
  })
  .meta({ id: 'AlertDelivery' });
export type DeliveryView = z.output<typeof deliverySchema>;

export const notificationSchema = deliverySchema
  .extend({ channelId: z.string(), channelName: z.string() })
  .meta({ id: 'AlertNotification' });
export type NotificationView = z.output<typeof notificationSchema>;
// Reports: a daily or weekly digest of the project (reports.ts).

export const reportBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    cadence: z.enum(['daily', 'weekly']).describe('daily: each local day; weekly: each week from Monday'),
    timeZone: z.string().min(1).max(100).default('UTC').describe("The reader's IANA time zone (Europe/Paris): days start at its midnight"),
    sendHour: z.number().int().min(0).max(23).default(8).describe('Local hour after the period ends the digest is sent'),
    channelIds: z.array(z.string().min(1).max(100)).max(50).default([]).describe('Alert channels (e-mail, Slack) it goes to'),
    webhooks: z.boolean().default(false).describe("Also as an alert.report event to the project's signed webhooks"),
    enabled: z.boolean().default(true),
  })
  .meta({ id: 'AlertReportBody' });
export type ReportBody = z.output<typeof reportBody>;

export const reportSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    cadence: z.enum(['daily', 'weekly']),
    timeZone: z.string(),
    sendHour: z.number().int(),
    channelIds: z.array(z.string()),
    webhooks: z.boolean(),
    enabled: z.boolean(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .meta({ id: 'AlertReport' });
export type ReportView = z.output<typeof reportSchema>;

const digestFigures = z.object({
  traces: z.number().int(),
  errors: z.number().int(),
  errorRate: z.number().nullable(),
  cost: z.number().describe('USD'),
  latencyP50: z.number().nullable().describe('ms'),
  latencyP95: z.number().nullable().describe('ms'),
});

export const digestSchema = z
  .object({
    reportId: z.string(),
    cadence: z.enum(['daily', 'weekly']),
    timeZone: z.string(),
    period: z.object({ start: z.number().int(), end: z.number().int(), label: z.string().describe('The local date (daily) or the week from its Monday') }),
    current: digestFigures,
    previous: digestFigures,
    evaluators: z.array(
      z.object({
        name: z.string(),
        verdicts: z.number().int(),
        passRate: z.number().nullable(),
        scores: z.number().int(),
        meanScore: z.number().nullable(),
      }),
    ),
    changes: z
      .array(
        z.object({
          what: z.string(),
          previous: z.number().nullable(),
          current: z.number().nullable(),
          pValue: z.number().describe('Adjusted across every figure of the digest (Benjamini-Hochberg)'),
        }),
      )
      .describe('Figures that moved against the previous period beyond chance (alpha 0.01 across the digest), biggest first'),
    alerts: z.array(z.object({ rule: z.string(), segment: z.string(), since: z.number().int(), windows: z.number().int() })).describe('Alerts firing in the period'),
    subject: z.string(),
    message: z.string().describe('The text sent to e-mail and Slack'),
  })
  .meta({ id: 'AlertReportDigest' });
export type DigestView = z.output<typeof digestSchema>;
