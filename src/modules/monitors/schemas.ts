import { z } from 'zod';

const stringOrList = z.union([z.string().min(1).max(500), z.array(z.string().min(1).max(500)).min(1).max(100)]);

/** Which incoming traces a monitor evaluates; the same keys as search filters. */
export const monitorFiltersSchema = z
  .strictObject({
    user_id: stringOrList.optional(),
    thread_id: stringOrList.optional(),
    customer_id: stringOrList.optional(),
    labels: stringOrList.optional(),
    model: stringOrList.optional(),
    span_type: stringOrList.optional(),
    has_error: z.boolean().optional(),
    metadata: z.record(z.string().min(1).max(200), z.union([z.string().max(1000), z.number(), z.boolean()])).optional(),
  })
  .meta({ id: 'MonitorFilters' });

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
