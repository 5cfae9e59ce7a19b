import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, customType, doublePrecision, index, integer, json, jsonb, pgTable, primaryKey, smallint, text, timestamp, unique } from 'drizzle-orm/pg-core';

/** PostgreSQL's tsvector (the full-text document of a trace), read by `@@` only. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * The traces module's tables. Mirrors migrations 0003_traces.sql, 0008 (spans.data json),
 * 0009 (traces.search_tsv), 0010 (no foreign keys on spans and traces: ingest holds the
 * project instead), 0012 (model names, span_log_events) and 0013 (token kinds, normalized
 * models); 0069 partitions spans and traces by day. Only the traces module's store files (store.ts, aggregates-store.ts, filter-store.ts, thread-store.ts) read and write them.
 */
export const spans = pgTable(
  'spans',
  {
    projectId: text('project_id').notNull(),
    traceId: text('trace_id').notNull(),
    spanId: text('span_id').notNull(),
    parentId: text('parent_id'),
    name: text('name'),
    type: text('type').notNull(),
    model: text('model'),
    vendor: text('vendor'),
    startedAt: bigint('started_at', { mode: 'number' }).notNull(),
    finishedAt: bigint('finished_at', { mode: 'number' }).notNull(),
    firstTokenAt: bigint('first_token_at', { mode: 'number' }),
    insertedAt: bigint('inserted_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
    promptTokens: integer('prompt_tokens'),
    completionTokens: integer('completion_tokens'),
    cachedInputTokens: integer('cached_input_tokens'),
    reasoningTokens: integer('reasoning_tokens'),
    tokensEstimated: boolean('tokens_estimated').notNull().default(false),
    cost: doublePrecision('cost'),
    hasError: boolean('has_error').notNull().default(false),
    error: jsonb('error'),
    inputText: text('input_text'),
    outputText: text('output_text'),
    traceMeta: jsonb('trace_meta'),
    /** The rest of the span's API shape, stored and returned whole (json, not jsonb: 0008). */
    data: json('data').notNull(),
    modelName: text('model_name'),
    /** The trace's UTC day (days since 1970-01-01): the partition (0069). */
    day: integer('day').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.traceId, t.spanId, t.day] })],
);

export const traces = pgTable(
  'traces',
  {
    projectId: text('project_id').notNull(),
    traceId: text('trace_id').notNull(),
    startedAt: bigint('started_at', { mode: 'number' }).notNull(),
    finishedAt: bigint('finished_at', { mode: 'number' }).notNull(),
    insertedAt: bigint('inserted_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
    input: text('input'),
    output: text('output'),
    userId: text('user_id'),
    threadId: text('thread_id'),
    customerId: text('customer_id'),
    labels: text('labels').array().notNull().default(sql`'{}'`),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    models: text('models').array().notNull().default(sql`'{}'`),
    spanTypes: text('span_types').array().notNull().default(sql`'{}'`),
    spanCount: integer('span_count').notNull(),
    firstTokenMs: integer('first_token_ms'),
    totalTimeMs: integer('total_time_ms'),
    promptTokens: integer('prompt_tokens'),
    completionTokens: integer('completion_tokens'),
    tokensEstimated: boolean('tokens_estimated').notNull().default(false),
    totalCost: doublePrecision('total_cost'),
    hasError: boolean('has_error').notNull().default(false),
    error: jsonb('error'),
    searchText: text('search_text').notNull().default(''),
    indexingMd5: text('indexing_md5').notNull().default(''),
    searchTsv: tsvector('search_tsv').generatedAlwaysAs(sql`to_tsvector('simple', search_text)`),
    modelNames: text('model_names').array().notNull().default(sql`'{}'`),
    cachedInputTokens: integer('cached_input_tokens'),
    reasoningTokens: integer('reasoning_tokens'),
    normalizedModels: text('normalized_models').array().notNull().default(sql`'{}'`),
    /** The UTC day the trace started on when first stored, kept: the partition (0069). */
    day: integer('day').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.traceId, t.day] }),
    index('traces_time').on(t.projectId, t.startedAt.desc(), t.traceId.desc()),
    index('traces_cost').on(t.projectId, t.totalCost.desc().nullsLast(), t.traceId.desc()),
    index('traces_latency').on(t.projectId, t.totalTimeMs.desc().nullsLast(), t.traceId.desc()),
    index('traces_user').on(t.projectId, t.userId).where(sql`user_id IS NOT NULL`),
    index('traces_thread').on(t.projectId, t.threadId).where(sql`thread_id IS NOT NULL`),
    index('traces_customer').on(t.projectId, t.customerId).where(sql`customer_id IS NOT NULL`),
    // Its pending list merged past 256 kB (migration 0078): every text search reads it whole.
    index('traces_fulltext').using('gin', t.searchTsv).with({ gin_pending_list_limit: 256 }),
    // traces_time_sums (project_id, started_at) INCLUDE (trace id, latency, sums, models): migration 0068 (drizzle's index has no INCLUDE).
  ],
);

export const traceShares = pgTable(
  'trace_shares',
  {
    token: text('token').primaryKey(),
    projectId: text('project_id').notNull(),
    traceId: text('trace_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** What the share hides from its visitors (traces/share-redaction.ts). */
    hideUser: boolean('hide_user').notNull().default(false),
    hideMetadata: boolean('hide_metadata').notNull().default(false),
    hideSpanAttributes: boolean('hide_span_attributes').notNull().default(false),
  },
  (t) => [unique().on(t.projectId, t.traceId)],
);

/** GenAI log events waiting for their span (0012). */
export const spanLogEvents = pgTable(
  'span_log_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    projectId: text('project_id').notNull(),
    traceId: text('trace_id').notNull(),
    spanId: text('span_id').notNull(),
    receivedAt: bigint('received_at', { mode: 'number' }).notNull(),
    events: jsonb('events').notNull(),
  },
  (t) => [index('span_log_events_trace').on(t.projectId, t.traceId), index('span_log_events_received').on(t.receivedAt)],
);

/** Saved views of the traces list, shared with the project (0026). */
export const traceViews = pgTable(
  'trace_views',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    name: text('name').notNull(),
    search: jsonb('search').notNull().default({}),
    columns: jsonb('columns').notNull().default([]),
    createdBy: text('created_by'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [unique().on(t.projectId, t.name)],
);

/**
 * Per-hour sums of trace summaries (0076, one row per hour and group since 0079): per project
 * and hour, over all of the hour's traces (byModel false) and per model group (byModel true),
 * with the hour's latency sketch as two arrays (the buckets of latency_sketch_bucket met,
 * ascending, and the traces in each). Exact for every hour without a row in trace_hours_dirty
 * (the traces' triggers mark the hours they write).
 */
export const traceRollups = pgTable(
  'trace_rollups',
  {
    projectId: text('project_id').notNull(),
    hour: bigint('hour', { mode: 'number' }).notNull(),
    byModel: boolean('by_model').notNull(),
    model: text('model'),
    traces: bigint('traces', { mode: 'number' }).notNull(),
    spans: bigint('spans', { mode: 'number' }),
    errors: bigint('errors', { mode: 'number' }).notNull(),
    cost: doublePrecision('cost'),
    promptTokens: bigint('prompt_tokens', { mode: 'number' }),
    completionTokens: bigint('completion_tokens', { mode: 'number' }),
    cachedInputTokens: bigint('cached_input_tokens', { mode: 'number' }),
    reasoningTokens: bigint('reasoning_tokens', { mode: 'number' }),
    latencyBuckets: smallint('latency_buckets').array().notNull(),
    latencyCounts: integer('latency_counts').array().notNull(),
  },
  (t) => [index('trace_rollups_hour').on(t.projectId, t.byModel, t.hour)],
);

/**
 * Per-hour thumbs of the traces (0077): per project and hour, thumbs up and down over all of the
 * hour's traces (byModel false) and per model group (byModel true); exact, as traceRollups, for
 * every hour not in trace_hours_dirty (the annotations' triggers mark their traces' hours).
 */
export const traceThumbRollups = pgTable(
  'trace_thumb_rollups',
  {
    projectId: text('project_id').notNull(),
    hour: bigint('hour', { mode: 'number' }).notNull(),
    byModel: boolean('by_model').notNull(),
    model: text('model'),
    up: bigint('up', { mode: 'number' }).notNull(),
    down: bigint('down', { mode: 'number' }).notNull(),
  },
  (t) => [index('trace_thumb_rollups_hour').on(t.projectId, t.byModel, t.hour)],
);

/** Per-hour verdicts of the traces (0077): per project, hour, evaluation name and evaluator, passed and failed (the evaluations' triggers mark their traces' hours). */
export const traceVerdictRollups = pgTable(
  'trace_verdict_rollups',
  {
    projectId: text('project_id').notNull(),
    hour: bigint('hour', { mode: 'number' }).notNull(),
    name: text('name').notNull(),
    evaluator: text('evaluator').notNull(),
    passed: bigint('passed', { mode: 'number' }).notNull(),
    failed: bigint('failed', { mode: 'number' }).notNull(),
  },
  (t) => [index('trace_verdict_rollups_hour').on(t.projectId, t.hour)],
);

/** Hours of trace summaries changed since their rollup rows were made (0076). */
export const traceHoursDirty = pgTable(
  'trace_hours_dirty',
  {
    projectId: text('project_id').notNull(),
    hour: bigint('hour', { mode: 'number' }).notNull(),
  },
  (t) => [index('trace_hours_dirty_hour').on(t.projectId, t.hour)],
);
