import { z } from 'zod';
import { traceFilterSchema } from './filter.ts';
import { BUILTIN_COLUMNS, isColumn } from './view-columns.schema.ts';
import { scoreSummarySchema, type ScoreSummary } from '../annotations/scores.schema.ts';

export { traceFilterSchema, summaryFilterSchema, type TraceFilter, type SummaryFilter } from './filter.ts';

import { dateInput } from '../../platform/date-input.ts';

/** Sorting a list by a numeric or boolean score config's mean: the traces list and the threads list. */
export const scoreSortField = (row: 'trace' | 'thread', mean: string) =>
  z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe(
      `A numeric or boolean score config's id (GET /api/score-configs): sort by ${mean} (boolean: the share true), in sortDirection; ${row}s without one come last either way. Replaces sortBy`,
    );

export const searchRequestSchema = z
  .strictObject({
    query: z.string().max(1000).optional().describe('Full-text: words of trace input or output (case-insensitive); "a phrase", or, -word'),
    startDate: dateInput.optional().describe('Traces started at or after (epoch ms or ISO 8601)'),
    endDate: dateInput.optional().describe('Traces started at or before (epoch ms or ISO 8601)'),
    filters: traceFilterSchema.optional(),
    pageSize: z.number().int().min(1).max(1000).optional().describe('Default 25'),
    scrollId: z.string().min(1).max(2000).optional().describe('pagination.scrollId of the previous page'),
    sortBy: z
      .enum(['started_at', 'timestamps.started_at', 'cost', 'metrics.total_cost', 'latency', 'metrics.total_time_ms'])
      .optional()
      .describe('Default started_at'),
    sortDirection: z.enum(['asc', 'desc']).optional().describe('Default desc'),
    sortByScore: scoreSortField('trace', "each trace's mean score of it"),
  })
  .meta({ id: 'SearchRequest' });

export type SearchRequest = z.infer<typeof searchRequestSchema>;

/**
 * Which traces a search selects, without paging or order: what every module that takes a trace
 * search takes (review queues and dataset imports from a search, the new-traces poll), so each
 * accepts the whole filter and reads it as the search does.
 */
export const traceSearchSchema = searchRequestSchema.pick({ query: true, startDate: true, endDate: true, filters: true });
export type TraceSearch = z.infer<typeof traceSearchSchema>;

export const newTracesRequestSchema = traceSearchSchema
  .extend({
    since: z.number().int().nonnegative().describe('Epoch ms: traces first stored at or after this time (timestamps.inserted_at)'),
    pageSize: z.number().int().min(1).max(200).optional().describe('Most recently stored first; default 50'),
  })
  .meta({ id: 'NewTracesRequest' });
export type NewTracesRequest = z.infer<typeof newTracesRequestSchema>;

/** One evaluation of a trace as the traces list shows it (the detail has the whole result). */
export const evaluationChipSchema = z.object({
  evaluation_id: z.string(),
  name: z.string(),
  status: z.string(),
  passed: z.boolean().nullable(),
  score: z.number().nullable(),
  label: z.string().nullable(),
});
export type EvaluationChip = z.infer<typeof evaluationChipSchema>;
export type AnnotationCounts = { thumbs_up: number; thumbs_down: number };
export type TraceScoreSummary = ScoreSummary;

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
      total_cost: z.number().nullable().optional().describe('USD'),
    }),
    error: errorSchema,
    indexing_md5s: z.array(z.string()),
    models: z.array(z.string()).optional().describe('Models its llm spans used'),
    span_types: z.array(z.string()).optional(),
    span_count: z.number().int().optional(),
    evaluations: z.array(evaluationChipSchema).optional().describe('Search answers: each evaluation of the trace, briefly'),
    annotations: z
      .object({ thumbs_up: z.number().int(), thumbs_down: z.number().int() })
      .optional()
      .describe('Search answers: how many annotations of the trace are thumbs up and down'),
    scores: z.array(scoreSummarySchema).optional().describe("Search answers: the trace's review scores per score config, summed up"),
  })
  .meta({ id: 'TraceSummary' });

const chatMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(z.unknown()), z.null()]),
  tool_calls: z.array(z.unknown()).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});

/** Input or output of a span: chat messages, text, or any JSON. */
export const spanPayloadSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('chat_messages'), value: z.array(chatMessageSchema) }),
    z.object({ type: z.literal('text'), value: z.string() }),
    z.object({ type: z.literal('json'), value: z.unknown() }),
    z.object({ type: z.literal('evaluation_result'), value: z.unknown() }).describe("An evaluation span's result, as the LangWatch SDKs type it"),
    z.object({ type: z.literal('guardrail_result'), value: z.unknown() }).describe("A guardrail span's result, as the LangWatch SDKs type it"),
  ])
  .nullable();

export const spanSchema = z
  .looseObject({
    trace_id: z.string(),
    span_id: z.string(),
    project_id: z.string(),
    parent_id: z.string().nullable(),
    name: z.string().nullable(),
    type: z.string(),
    model: z.string().nullable(),
    vendor: z.string().nullable().optional().describe('Provider or system, e.g. openai'),
    timestamps: z.object({
      started_at: z.number(),
      finished_at: z.number(),
      first_token_at: z.number().nullable(),
      updated_at: z.number(),
      inserted_at: z.number(),
    }),
    error: errorSchema,
    params: z.record(z.string(), z.unknown()),
    metrics: z.looseObject({
      tokens_estimated: z.boolean(),
      prompt_tokens: z.number().nullable(),
      completion_tokens: z.number().nullable(),
      cached_input_tokens: z.number().nullable().optional().describe('Part of prompt_tokens read from the prompt cache'),
      reasoning_tokens: z.number().nullable().optional().describe('Part of completion_tokens spent reasoning'),
      cost: z.number().nullable().optional().describe('USD'),
    }),
    input: spanPayloadSchema,
    output: spanPayloadSchema,
    contexts: z
      .array(z.looseObject({ document_id: z.string().nullable().optional(), chunk_id: z.string().nullable().optional(), content: z.unknown() }))
      .optional()
      .describe('RAG spans: the documents retrieved (langwatch.rag_contexts)'),
    attributes: z.record(z.string(), z.unknown()).optional().describe('Attributes not mapped onto a field, flattened'),
    redactions: z.record(z.string(), z.record(z.string(), z.number())).optional().describe("Privacy at ingest: values removed from this span, per field and entity type (no values)"),
    resource: z.record(z.string(), z.unknown()).optional(),
    events: z.array(z.object({ name: z.string(), time: z.number(), attributes: z.record(z.string(), z.unknown()) })).optional(),
    links: z.array(z.object({ trace_id: z.string(), span_id: z.string(), attributes: z.record(z.string(), z.unknown()) })).optional(),
    status: z.object({ code: z.string(), message: z.string().nullable() }).optional(),
    kind: z.string().optional(),
    scope: z.object({ name: z.string().nullable(), version: z.string().nullable() }).optional(),
  })
  .meta({ id: 'Span' });

/** A span without its payloads: what a span tree and a waterfall draw. */
export const spanOutlineSchema = z
  .object({
    span_id: z.string(),
    parent_id: z.string().nullable(),
    name: z.string().nullable(),
    type: z.string(),
    model: z.string().nullable(),
    timestamps: z.object({ started_at: z.number(), finished_at: z.number(), first_token_at: z.number().nullable() }),
    error: z.object({ message: z.string() }).nullable(),
    metrics: z.object({ prompt_tokens: z.number().nullable(), completion_tokens: z.number().nullable(), cost: z.number().nullable() }),
  })
  .meta({ id: 'SpanOutline' });

/** Privacy at ingest's record of a trace (the privacy module presents it). */
const redactionsSchema = z
  .object({
    total: z.number().int(),
    summary: z.string().describe('"3 values redacted: 2 EMAIL_ADDRESS in input, 1 PHONE_NUMBER in output"'),
    counts: z.array(z.object({ field: z.string(), entity_type: z.string(), count: z.number().int() })),
  })
  .nullable()
  .optional()
  .describe("What the project's privacy settings removed from the trace at ingest, without the values; null when nothing was");

export const traceOutlineSchema = traceSummarySchema
  .extend({
    spans: z.array(spanOutlineSchema).describe('Every span without input, output, params, attributes or events: GET .../spans/{spanId} has those'),
    evaluations: z.array(z.looseObject({})),
    redactions: redactionsSchema,
  })
  .meta({ id: 'TraceOutline' });

export const spanParams = z.object({
  id: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'a trace id is 1..128 letters, digits or _ . : -'),
  spanId: z.string().min(1).max(256),
});
export const shareSpanParams = z.object({ token: z.string().max(100), spanId: z.string().min(1).max(256) });

export const traceDetailSchema = traceSummarySchema
  .extend({ spans: z.array(spanSchema), evaluations: z.array(z.looseObject({})), redactions: redactionsSchema })
  .meta({ id: 'TraceDetail' });

export const newTracesResponseSchema = z
  .object({
    traces: z.array(traceSummarySchema).describe('Most recently stored first'),
    count: z.number().int().describe('How many traces match, stored at or after since (exact up to 10,000)'),
    now: z.number().int().describe("The server's time (epoch ms): the next poll's since, less a few seconds for transactions still committing"),
  })
  .meta({ id: 'NewTracesResponse' });

const shareOptionsShape = {
  hide_user: z.boolean().describe("Hide the end user (the trace's user_id, user attributes of spans) from visitors; default true"),
  hide_metadata: z.boolean().describe("Hide the trace's metadata (labels, thread, customer, custom keys); default false"),
  hide_span_attributes: z.boolean().describe("Hide the spans' attributes and resource attributes; default false"),
};

/** POST /api/trace/{id}/share: what the public path hides (optional; sharing again updates it). */
export const shareBodySchema = z.strictObject({ hide_user: shareOptionsShape.hide_user.optional(), hide_metadata: shareOptionsShape.hide_metadata.optional(), hide_span_attributes: shareOptionsShape.hide_span_attributes.optional() }).nullish();

export const shareStateSchema = z
  .object({
    shared: z.boolean(),
    path: z.string().nullable().describe('/share/<token> while shared'),
    options: z.object(shareOptionsShape).nullable().describe('What the public path hides from its visitors (null while not shared)'),
  })
  .meta({ id: 'ShareState' });

export type TraceSummaryView = z.infer<typeof traceSummarySchema>;
export type TraceDetailView = z.infer<typeof traceDetailSchema>;
export type SpanView = z.infer<typeof spanSchema>;
export type SpanOutlineView = z.infer<typeof spanOutlineSchema>;
export type TraceOutlineView = z.infer<typeof traceOutlineSchema>;
export type SearchResponse = z.infer<typeof searchResponseSchema>;
export type NewTracesResponse = z.infer<typeof newTracesResponseSchema>;

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

// ---- Finding spans inside one trace (the trace page's search)

export const spanSearchQuery = z.strictObject({
  q: z.string().trim().min(1, 'q: say what to look for').max(200).describe('Case-insensitive text, matched within span names, types, models, inputs, outputs, error messages and attribute values'),
});

export const spanSearchResponseSchema = z
  .object({
    span_ids: z.array(z.string()).describe('Matching spans in start order (at most 10,000)'),
    truncated: z.boolean(),
  })
  .meta({ id: 'SpanSearchResponse' });
export type SpanSearchResponse = z.infer<typeof spanSearchResponseSchema>;

// ---- Saved views of the traces list

export const viewColumnSchema = z
  .string()
  .max(210)
  .refine(isColumn, {
    message: `a column is one of ${BUILTIN_COLUMNS.join(', ')}, or meta:<metadata key>, or eval:<evaluation name>, or score:<score config id>`,
  });

const viewSearch = z
  .record(z.string().regex(/^[a-z_]{1,40}$/, 'a search key is 1..40 lowercase letters or _'), z.string().max(2000))
  .refine((s) => Object.keys(s).length <= 30, { message: 'at most 30 search keys' })
  .describe("The traces list's URL parameters: q, range, from, to, user, thread, customer, labels, model, type, error, annotated, eval, evaluator, score, meta, sort, dir");

export const createViewBody = z.strictObject({
  name: z.string().trim().min(1, 'name: required').max(100),
  search: viewSearch.default({}),
  columns: z.array(viewColumnSchema).max(40).default([]).describe('Columns in order; empty: the default columns'),
});
export const updateViewBody = z.strictObject({
  name: createViewBody.shape.name.optional(),
  search: viewSearch.optional(),
  columns: z.array(viewColumnSchema).max(40).optional(),
});
export const viewIdParams = z.object({ id: z.string().min(1).max(100) });

export const traceViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    search: z.record(z.string(), z.string()),
    columns: z.array(z.string()),
    created_by: z.string().nullable().describe('The user who saved it (null: an API key)'),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'TraceView' });
export type TraceViewView = z.infer<typeof traceViewSchema>;
export type CreateViewBody = z.input<typeof createViewBody>;
export type UpdateViewBody = z.input<typeof updateViewBody>;
