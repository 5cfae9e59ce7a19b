import { z } from 'zod';
import { summaryFilterSchema } from '../traces/schemas.ts';

/** Which incoming traces a monitor evaluates: the trace filter's keys a trace summary decides. */
export const monitorFiltersSchema = summaryFilterSchema.meta({ id: 'MonitorFilters' });

export type MonitorFilters = z.infer<typeof monitorFiltersSchema>;

export const createMonitorBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  evaluator: z.string().min(3).max(200).describe('An evaluator path of GET /api/evaluations, e.g. pii/pii_detection'),
  settings: z.record(z.string(), z.unknown()).default({}).describe("The evaluator's settings (validated against its schema)"),
  sample: z.number().min(0).max(1).default(1).describe('Share of matching traces evaluated (0..1); the same trace is always in or out'),
  filters: monitorFiltersSchema.nullable().optional(),
  enabled: z.boolean().default(true),
});

export const updateMonitorBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    evaluator: z.string().min(3).max(200).optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
    sample: z.number().min(0).max(1).optional(),
    filters: monitorFiltersSchema.nullable().optional(),
    enabled: z.boolean().optional(),
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
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Monitor' });

export type MonitorView = z.infer<typeof monitorSchema>;

const dateInput = z.union([z.coerce.number().int().nonnegative(), z.iso.datetime({ offset: true })]);

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
});

export const monitorStatsResponse = z
  .object({
    interval: z.enum(['minute', 'hour', 'day', 'week']),
    intervalMs: z.number().int(),
    startDate: z.number().int(),
    endDate: z.number().int(),
    buckets: z.array(
      z.object({
        start: z.number().int(),
        passed: z.number().int(),
        failed: z.number().int(),
        errors: z.number().int(),
        skipped: z.number().int(),
        pass_rate: z.number().nullable().describe('passed / (passed + failed); null without verdicts'),
      }),
    ),
  })
  .meta({ id: 'MonitorStats' });

export type MonitorResultView = z.infer<typeof monitorResultSchema>;
export type MonitorResultsResponse = z.infer<typeof monitorResultsResponse>;
export type MonitorStatsResponse = z.infer<typeof monitorStatsResponse>;
