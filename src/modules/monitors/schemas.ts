import { z } from 'zod';
import { utcOffsetMinutesQuery } from '../../platform/utc-offset.ts';
import { summaryFilterSchema } from '../traces/schemas.ts';

/** Which incoming traces a monitor evaluates: the trace filter's keys a trace summary decides. */
export const monitorFiltersSchema = summaryFilterSchema.meta({ id: 'MonitorFilters' });

export type MonitorFilters = z.infer<typeof monitorFiltersSchema>;

/** How long a thread must be quiet (no new turn) before a thread monitor evaluates it: 1 minute to 7 days. */
export const IDLE_MINUTES = { min: 1, max: 10_080, default: 30 } as const;
const unit = z.enum(['trace', 'thread']).describe('What one evaluation judges: a trace (each as it arrives) or a whole thread (the traces sharing a thread id, once it is idle)');
const idleMinutes = z
  .number()
  .int()
  .min(IDLE_MINUTES.min)
  .max(IDLE_MINUTES.max)
  .describe(`unit thread: evaluate a thread once it has had no new turn for this long (${IDLE_MINUTES.min}..${IDLE_MINUTES.max} minutes, default ${IDLE_MINUTES.default}); a thread that gets new turns is evaluated again once idle`);

/**
 * A thread monitor on a schedule runs every so many minutes on the UTC clock: a length that
 * divides a day (every 15 minutes at :00, :15, :30, :45; every 6 hours at 00:00, 06:00, ...)
 * or whole days up to a week (at midnight UTC; every 7 days on Mondays).
 */
export const SCHEDULE_MINUTES = { min: 5, max: 10_080 } as const;
export function scheduleFits(minutes: number): boolean {
  return minutes <= 1440 ? 1440 % minutes === 0 : minutes % 1440 === 0;
}
const scheduleMinutes = z
  .number()
  .int()
  .min(SCHEDULE_MINUTES.min)
  .max(SCHEDULE_MINUTES.max)
  .refine(scheduleFits, { message: 'must divide a day (5, 10, 15, 30, 60, 120, 180, 240, 360, 720 or 1440 minutes, ...) or be whole days (2880 ... 10080)' })
  .describe(
    `unit thread, instead of idle_minutes: run every this many minutes on the UTC clock (${SCHEDULE_MINUTES.min}..${SCHEDULE_MINUTES.max}; a length dividing a day, or whole days), evaluating the threads that got turns since their last result`,
  );

const reviewQueueId = z.string().min(1).max(128).describe('a review queue of the project (GET /api/queues): every trace the evaluator fails is added to it');

export const createMonitorBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  evaluator: z.string().min(3).max(200).describe('An evaluator path of GET /api/evaluations, e.g. pii/pii_detection'),
  settings: z.record(z.string(), z.unknown()).default({}).describe("The evaluator's settings (validated against its schema)"),
  sample: z.number().min(0).max(1).default(1).describe('Share of matching traces evaluated (0..1); the same trace is always in or out'),
  filters: monitorFiltersSchema.nullable().optional(),
  enabled: z.boolean().default(true),
  review_queue_id: reviewQueueId.nullable().optional(),
  unit: unit.default('trace'),
  idle_minutes: idleMinutes.nullable().optional(),
  schedule_minutes: scheduleMinutes.nullable().optional(),
});

export const updateMonitorBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    evaluator: z.string().min(3).max(200).optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
    sample: z.number().min(0).max(1).optional(),
    filters: monitorFiltersSchema.nullable().optional(),
    enabled: z.boolean().optional(),
    review_queue_id: reviewQueueId.nullable().optional(),
    idle_minutes: idleMinutes.optional().describe('unit thread: run once a thread is idle this long (ends a schedule)'),
    schedule_minutes: scheduleMinutes.nullable().optional().describe('unit thread: run on this schedule instead of once idle; null goes back to running once idle'),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'send at least one field' });

export const monitorSchema = z
  .object({
    id: z.string(),
    project_id: z.string(),
    name: z.string(),
    evaluator: z.string(),
    settings: z.record(z.string(), z.unknown()),
    sample: z.number(),
    filters: monitorFiltersSchema.nullable(),
    enabled: z.boolean(),
    review_queue_id: z.string().nullable().describe('the review queue the traces it fails go to (null: none)'),
    unit: z.enum(['trace', 'thread']),
    idle_minutes: z.number().int().nullable().describe('unit thread: minutes a thread is idle before it is evaluated (null for unit trace, or on a schedule)'),
    schedule_minutes: z.number().int().nullable().describe('unit thread on a schedule: it runs every this many minutes on the UTC clock (null: once idle, or unit trace)'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Monitor' });

export type MonitorView = z.infer<typeof monitorSchema>;

// Epoch milliseconds start in 1970: an earlier time (a date picker allows one) is refused in those words.
const dateInput = z.union([z.coerce.number().int().nonnegative({ error: 'must be in 1970 or later' }), z.iso.datetime({ offset: true })]);

export const monitorResultsQuery = z.object({
  pageSize: z.coerce.number().int().min(1).max(200).default(50).describe('1..200, default 50'),
  cursor: z.string().min(1).max(500).optional().describe('next_cursor of the previous page'),
  outcome: z.enum(['passed', 'failed', 'error', 'skipped']).optional().describe('Only these results (failed: the evaluator judged against the trace)'),
});

export const monitorResultSchema = z
  .object({
    evaluation_id: z.string(),
    trace_id: z.string().describe('GET /api/trace/{trace_id}; the web app shows it at /p/<projectId>/traces/<trace_id>'),
    status: z.enum(['processed', 'skipped', 'error']),
    passed: z.boolean().nullable(),
    score: z.number().nullable(),
    label: z.string().nullable(),
    details: z.string().nullable(),
    evaluator_version: z.number().int().nullable().describe('The custom evaluator\'s version that produced it (null for built-in evaluators)'),
    inserted_at: z.number().int().describe('When it ran (epoch ms)'),
  })
  .meta({ id: 'MonitorResult' });

export const monitorResultsResponse = z
  .object({ data: z.array(monitorResultSchema).describe('Newest first'), next_cursor: z.string().nullable() })
  .meta({ id: 'MonitorResults' });

export const monitorStatsQuery = z.object({
  startDate: dateInput.optional().describe('Results stored at or after (epoch ms or ISO 8601); default: 7 days before endDate'),
  endDate: dateInput.optional().describe('Results stored at or before; default: now'),
  interval: z.enum(['auto', 'minute', 'hour', 'day', 'week']).default('auto').describe('auto: the finest giving at most 200 buckets'),
  utcOffsetMinutes: utcOffsetMinutesQuery,
});

const scoreSummarySchema = z
  .object({
    count: z.number().int().describe('results with a score'),
    mean: z.number(),
    min: z.number(),
    p50: z.number().describe('the median'),
    p90: z.number(),
    max: z.number(),
  })
  .nullable()
  .describe('the scores given (an evaluator with a score, with or without pass/fail); null when none was');
const distributionSchema = z
  .array(z.object({ from: z.number(), to: z.number(), count: z.number().int() }))
  .describe(
    "how many scores fall in each bin, lowest first: one bin per value (from = to) when every score is a whole number and the lowest and highest are under 20 apart; else 10 equal widths from the lowest to the highest score (from <= score < to; the last bin holds the highest). Empty when nothing was scored",
  );
const labelCountsSchema = z.array(z.object({ label: z.string(), count: z.number().int() })).describe('results per label (categorical evaluators), most frequent first');

export const monitorStatsResponse = z
  .object({
    interval: z.enum(['minute', 'hour', 'day', 'week']),
    intervalMs: z.number().int(),
    startDate: z.number().int(),
    endDate: z.number().int(),
    overall: z.object({ score: scoreSummarySchema, distribution: distributionSchema, labels: labelCountsSchema }).describe('the whole range at once (its percentiles are of every score in it)'),
    buckets: z.array(
      z.object({
        start: z.number().int(),
        passed: z.number().int(),
        failed: z.number().int(),
        errors: z.number().int(),
        skipped: z.number().int(),
        pass_rate: z.number().nullable().describe('passed / (passed + failed); null without verdicts'),
        score: scoreSummarySchema,
        labels: labelCountsSchema,
      }),
    ),
  })
  .meta({ id: 'MonitorStats' });

export type MonitorResultView = z.infer<typeof monitorResultSchema>;
export type MonitorResultsResponse = z.infer<typeof monitorResultsResponse>;
export type MonitorStatsResponse = z.infer<typeof monitorStatsResponse>;
export type ScoreSummary = z.infer<typeof scoreSummarySchema>;

export const MAX_BACKFILL = 10_000;

export const backfillBody = z
  .strictObject({
    startDate: dateInput.describe('Traces started at or after (epoch ms or ISO 8601)'),
    endDate: dateInput.optional().describe('Traces started at or before; default: now'),
    filters: monitorFiltersSchema.nullable().optional().describe("Which traces; default: the monitor's own filters"),
    limit: z.number().int().min(1).max(MAX_BACKFILL).default(MAX_BACKFILL).describe(`At most this many traces (1..${MAX_BACKFILL}), newest first`),
  })
  .meta({ id: 'MonitorBackfillRequest' });
export type BackfillBody = z.output<typeof backfillBody>;

export const backfillPreviewSchema = z
  .object({
    count: z.number().int().describe("Traces the backfill would go through: matching the filter and time range, in the monitor's sample, at most limit (those already evaluated at this evaluator version are skipped when it runs, at no cost)"),
    capped: z.boolean().describe('More traces match than limit: only the newest limit would be evaluated'),
    limit: z.number().int(),
    estimated_cost: z
      .object({
        amount: z.number().nullable().describe('USD for all of them (an upper bound when some were already evaluated); 0 for evaluators without an LLM; null when the model is not in the price table'),
        currency: z.string(),
        per_trace: z.number().nullable(),
        model: z.string().nullable(),
        prompt_tokens_per_trace: z.number().int().describe("The judge's prompt, counted with the model's tokenizer over a sample of the matching traces"),
        answer_tokens_per_trace: z.number().int().describe('The answer the estimate assumes'),
        method: z.string().describe('How it was estimated'),
      })
      .describe('An estimate: what the judge is sent is counted on a sample of the traces; the answer length is assumed'),
  })
  .meta({ id: 'MonitorBackfillPreview' });
export type BackfillPreview = z.output<typeof backfillPreviewSchema>;

export const backfillSchema = z
  .object({
    id: z.string(),
    monitor_id: z.string(),
    state: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
    start_date: z.number().int(),
    end_date: z.number().int(),
    total: z.number().int().describe('Traces it will go through (known once running)'),
    done: z.number().int().describe('Traces gone through: evaluated + skipped + failed'),
    evaluated: z.number().int().describe('Results stored as the monitor\'s evaluations'),
    skipped: z.number().int().describe('Already evaluated by this monitor (at this evaluator version), or deleted since'),
    failed: z.number().int().describe("Traces the evaluator could not judge (the trace lacks what it needs, or the result was an error)"),
    error: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'MonitorBackfill' });
export type BackfillView = z.output<typeof backfillSchema>;
