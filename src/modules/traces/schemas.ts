import { z } from 'zod';

const stringOrList = z.union([z.string().min(1).max(500), z.array(z.string().min(1).max(500)).min(1).max(100)]);
const dateInput = z.union([z.number().int().nonnegative(), z.iso.datetime({ offset: true })]);

export const searchRequestSchema = z
  .strictObject({
    query: z.string().max(1000).optional().describe('Full-text: words of trace input or output (case-insensitive); "a phrase", or, -word'),
    startDate: dateInput.optional().describe('Traces started at or after (epoch ms or ISO 8601)'),
    endDate: dateInput.optional().describe('Traces started at or before (epoch ms or ISO 8601)'),
    filters: z
      .strictObject({
        user_id: stringOrList.optional(),
        thread_id: stringOrList.optional(),
        customer_id: stringOrList.optional(),
        labels: stringOrList.optional().describe('Any of these labels'),
        model: stringOrList.optional().describe('Any span used one of these models'),
        span_type: stringOrList.optional().describe('Any span has one of these types (llm, tool, agent, ...)'),
        has_error: z.boolean().optional(),
        has_annotation: z.boolean().optional(),
        evaluation: z
          .strictObject({
            evaluator: z.string().min(1).max(200).optional().describe('Evaluator path or name, e.g. pii/pii_detection'),
            passed: z.boolean().optional(),
            status: z.enum(['processed', 'skipped', 'error']).optional(),
          })
          .optional(),
        metadata: z.record(z.string().min(1).max(200), z.union([z.string().max(1000), z.number(), z.boolean()])).optional().describe('key = value on trace metadata'),
      })
      .optional(),
    pageSize: z.number().int().min(1).max(1000).optional().describe('Default 25'),
    scrollId: z.string().min(1).max(2000).optional().describe('pagination.scrollId of the previous page'),
    sortBy: z
      .enum(['started_at', 'timestamps.started_at', 'cost', 'metrics.total_cost', 'latency', 'metrics.total_time_ms'])
      .optional()
      .describe('Default started_at'),
    sortDirection: z.enum(['asc', 'desc']).optional().describe('Default desc'),
  })
  .meta({ id: 'SearchRequest' });

export type SearchRequest = z.infer<typeof searchRequestSchema>;

const errorSchema = z.object({ has_error: z.boolean(), message: z.string(), stacktrace: z.array(z.string()) }).nullable();

export const traceSummarySchema = z
  .looseObject({
    trace_id: z.string(),
    project_id: z.string(),
    metadata: z.looseObject({ sdk_version: z.string().optional(), sdk_language: z.string().optional() }),
    timestamps: z.object({ started_at: z.number(), inserted_at: z.number(), updated_at: z.number() }),
    input: z.object({ value: z.string() }),
    output: z.object({ value: z.string() }),
    metrics: z.looseObject({
      first_token_ms: z.number().nullable(),
      total_time_ms: z.number().nullable(),
      prompt_tokens: z.number().nullable(),
      completion_tokens: z.number().nullable(),
      tokens_estimated: z.boolean(),
    }),
    error: errorSchema,
    indexing_md5s: z.array(z.string()),
  })
  .meta({ id: 'TraceSummary' });

export const spanSchema = z
  .looseObject({
    trace_id: z.string(),
    span_id: z.string(),
    project_id: z.string(),
    parent_id: z.string().nullable(),
    name: z.string().nullable(),
    type: z.string(),
    model: z.string().nullable(),
    timestamps: z.object({
      started_at: z.number(),
      finished_at: z.number(),
      first_token_at: z.number().nullable(),
      updated_at: z.number(),
      inserted_at: z.number(),
    }),
    error: errorSchema,
    params: z.record(z.string(), z.unknown()),
    metrics: z.looseObject({ tokens_estimated: z.boolean(), prompt_tokens: z.number().nullable(), completion_tokens: z.number().nullable() }),
    input: z.unknown(),
    output: z.unknown(),
  })
  .meta({ id: 'Span' });

export const traceDetailSchema = traceSummarySchema
  .extend({ spans: z.array(spanSchema), evaluations: z.array(z.looseObject({})) })
  .meta({ id: 'TraceDetail' });

export const searchResponseSchema = z
  .object({
    traces: z.array(traceSummarySchema),
    pagination: z.object({
      totalHits: z.number().int().describe('Exact up to 10,000; see totalHitsRelation'),
      totalHitsRelation: z.enum(['eq', 'gte']).describe('gte: at least totalHits traces match'),
      scrollId: z.string().nullable(),
    }),
  })
  .meta({ id: 'SearchResponse' });

/** The shared Error object of annotation and trace routes. */
export const errorObjectSchema = z
  .object({
    error: z.string().describe('machine-readable code, e.g. trace_not_found, validation_error'),
    message: z.string(),
    field: z.string().optional().describe('the request field at fault'),
    issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Error' });

export const traceIdParams = z.object({
  id: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'a trace id is 1..128 letters, digits or _ . : -'),
});
