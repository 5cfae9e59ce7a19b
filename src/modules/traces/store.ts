import { and, eq, lt, sql, type SQL, type SQLWrapper, type Subquery } from 'drizzle-orm';
import { spanLogEvents, spans as spansTable, traces as tracesTable, traceShares, traceViews } from '../../db/schema/traces.ts';
import { containsPattern, jsonParam, reserveSession, rows, textArray, type Database, type Executor } from '../../db/index.ts';
import { DAY_MS } from '../../db/day-partitions.ts';
import { eventsInsertSql } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import type { SpanEvent } from './ingest/mapping-context.ts';
import type { PreparedSpanRow, SpanRow } from './span-rows.ts';
import type { SpanFacts, TraceSummary } from './summary.ts';
import type { ShareOptions } from './share-redaction.ts';
import type { ScoreMeansRelation } from './relations.ts';

/*
 * The traces module's tables (src/db/schema/traces.ts) are read and written here only.
 * Simple statements use drizzle's builder. The ingest path (upsertSpans, upsertSummaries,
 * spanFacts, insertPendingLogEvents) and the big reads (span JSON built by the database,
 * the streamed detail's cursor, keyset search pages) stay raw SQL on purpose: multi-row
 * upserts from one json_to_recordset parameter (one parameter for a whole batch instead of
 * ~26 per row, which the builder's .values() would bind), ON CONFLICT ... DO UPDATE lists
 * chosen per batch, the trace.created events written in the same statement, and casts
 * (::float8) the drivers need; the builder has no form for these, and a per-row builder
 * insert costs more CPU on the hot path (bench/ingest-median.ts).
 */

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/**
 * Serializes concurrent batches that touch the same traces (PostgreSQL; PGlite runs one
 * transaction at a time anyway), so every summary is computed from every committed span.
 */
export async function lockTraces(tx: Executor, db: Database, projectId: string, traceIds: string[]) {
  if (db.kind !== 'postgres') return;
  const keys = [...traceIds].sort().map((t) => `${projectId}:${t}`);
  await tx.execute(
    sql`SELECT pg_advisory_xact_lock(k) FROM (SELECT hashtextextended(x, 0) AS k FROM unnest(${textArray(keys)}) AS x ORDER BY 1) s`,
  );
}

/**
 * One statement for the whole batch; a repeated span id replaces the earlier version.
 * `replacing` says whether any of these spans is already stored (the caller knows, holding
 * the traces' locks): a plain INSERT skips the upsert's speculative insertion, about 10 %
 * of the statement (bench: PGlite and PostgreSQL alike).
 */
export async function upsertSpans(tx: Executor, projectId: string, spans: PreparedSpanRow[], days: ReadonlyMap<string, number>, now: number, replacing: boolean) {
  if (!spans.length) return;
  // Each row's object with its trace's day put first (the rows are JSON text already).
  const json = spans.map((r) => `{"day":${days.get(r.facts.trace_id)},${r.json.slice(1)}`).join(',');
  await tx.execute(sql`
    INSERT INTO spans (project_id, trace_id, span_id, parent_id, name, type, model, model_name, vendor, started_at, finished_at,
      first_token_at, inserted_at, updated_at, prompt_tokens, completion_tokens, cached_input_tokens, reasoning_tokens,
      tokens_estimated, cost, has_error, error, input_text, output_text, trace_meta, data, day)
    SELECT ${projectId}, x.trace_id, x.span_id, x.parent_id, x.name, x.type, x.model, x.model_name, x.vendor, x.started_at, x.finished_at,
      x.first_token_at, ${now}::bigint, ${now}::bigint, x.prompt_tokens, x.completion_tokens, x.cached_input_tokens, x.reasoning_tokens,
      x.tokens_estimated, x.cost, x.has_error, x.error, x.input_text, x.output_text, x.trace_meta, x.data, x.day
    FROM json_to_recordset(${`[${json}]`}::json) AS x(day int, trace_id text, span_id text, parent_id text, name text,
      type text, model text, model_name text, vendor text, started_at bigint, finished_at bigint, first_token_at bigint, prompt_tokens int,
      completion_tokens int, cached_input_tokens int, reasoning_tokens int, tokens_estimated boolean, cost double precision,
      has_error boolean, error jsonb, input_text text, output_text text, trace_meta jsonb, data json)
    ${replacing ? REPLACE_SPAN : sql``}`);
}

const REPLACE_SPAN = sql.raw(`
    ON CONFLICT (project_id, trace_id, span_id, day) DO UPDATE SET
      parent_id = EXCLUDED.parent_id, name = EXCLUDED.name, type = EXCLUDED.type, model = EXCLUDED.model,
      model_name = EXCLUDED.model_name, vendor = EXCLUDED.vendor, started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at,
      first_token_at = EXCLUDED.first_token_at, updated_at = EXCLUDED.updated_at, prompt_tokens = EXCLUDED.prompt_tokens,
      completion_tokens = EXCLUDED.completion_tokens, cached_input_tokens = EXCLUDED.cached_input_tokens,
      reasoning_tokens = EXCLUDED.reasoning_tokens, tokens_estimated = EXCLUDED.tokens_estimated, cost = EXCLUDED.cost,
      has_error = EXCLUDED.has_error, error = EXCLUDED.error, input_text = EXCLUDED.input_text,
      output_text = EXCLUDED.output_text, trace_meta = EXCLUDED.trace_meta, data = EXCLUDED.data`);

/** Columns both span readers need, and their mapping (int8 arrives as number or string). */
const SPAN_BASE_COLUMNS = sql.raw(`trace_id, span_id, parent_id, type, model, started_at::float8 AS started_at,
  finished_at::float8 AS finished_at, first_token_at::float8 AS first_token_at, inserted_at::float8 AS inserted_at,
  updated_at::float8 AS updated_at, prompt_tokens, completion_tokens, cached_input_tokens, reasoning_tokens, tokens_estimated, cost, error`);

function spanBase(r: Record<string, unknown>) {
  return {
    trace_id: r.trace_id as string,
    span_id: r.span_id as string,
    parent_id: (r.parent_id as string | null) ?? null,
    type: r.type as string,
    model: (r.model as string | null) ?? null,
    started_at: Number(r.started_at),
    finished_at: Number(r.finished_at),
    first_token_at: num(r.first_token_at),
    inserted_at: Number(r.inserted_at),
    updated_at: Number(r.updated_at),
    prompt_tokens: num(r.prompt_tokens),
    completion_tokens: num(r.completion_tokens),
    cached_input_tokens: num(r.cached_input_tokens),
    reasoning_tokens: num(r.reasoning_tokens),
    tokens_estimated: !!r.tokens_estimated,
    cost: num(r.cost),
    error: (r.error as SpanFacts['error']) ?? null,
  };
}

/** GenAI events of log records whose span had not arrived when they did (span_log_events). */
export interface PendingLogEvents {
  id: number;
  trace_id: string;
  span_id: string;
  events: SpanEvent[];
}


/** The project's row locked by the statement reading it (the organizations module builds it). */
export type ProjectHold = Subquery & { id: SQLWrapper };

/**
 * Facts of the stored spans of these traces, whether `hold` (the project's row, locked) found
 * the project, and (`withPending`) the log events waiting for spans of these
 * traces: one statement for all three. The pending events are one uncorrelated subquery,
 * evaluated once: an index probe per trace, on a table that is usually empty.
 */
export async function spanFacts(
  tx: Executor,
  projectId: string,
  traceIds: string[],
  hold: ProjectHold,
  withPending: boolean,
): Promise<{ projectHeld: boolean; stored: (SpanFacts & { trace_id: string; day: number })[]; pending: PendingLogEvents[] }> {
  const pendingColumn = withPending
    ? sql`, (SELECT coalesce(json_agg(json_build_object('id', e.id, 'trace_id', e.trace_id, 'span_id', e.span_id, 'events', e.events) ORDER BY e.id), '[]'::json)
             FROM span_log_events e WHERE e.project_id = ${projectId} AND e.trace_id = ANY(${textArray(traceIds)})) AS pending`
    : sql``;
  const result = await rows<Record<string, unknown>>(
    tx,
    sql`SELECT (SELECT count(*) FROM ${hold})::int AS project_held ${pendingColumn}, f.*
        FROM (SELECT 1) one LEFT JOIN LATERAL (
          SELECT ${SPAN_BASE_COLUMNS}, has_error, input_text, output_text, trace_meta, day
          FROM spans
          WHERE project_id = ${projectId} AND trace_id = ANY(${textArray(traceIds)})
        ) f ON true`,
  );
  const stored = result
    .filter((r) => r.span_id !== null)
    .map((r) => ({
      ...spanBase(r),
      has_error: !!r.has_error,
      input_text: (r.input_text as string | null) ?? null,
      output_text: (r.output_text as string | null) ?? null,
      trace_meta: (r.trace_meta as SpanFacts['trace_meta']) ?? null,
      day: Number(r.day),
    }));
  const pending = withPending ? ((result[0]?.pending as PendingLogEvents[] | undefined) ?? []) : [];
  return { projectHeld: Number(result[0]?.project_held) > 0, stored, pending };
}

/** Whole stored spans (every column and the payload) of these traces and span ids. */
export async function storedSpanRows(tx: Executor, projectId: string, traceIds: string[], spanIds: string[]): Promise<SpanRow[]> {
  const found = await rows<Record<string, unknown>>(
    tx,
    sql`SELECT trace_id, span_id, parent_id, name, type, model, model_name, vendor, started_at::float8 AS started_at,
          finished_at::float8 AS finished_at, first_token_at::float8 AS first_token_at, prompt_tokens, completion_tokens,
          cached_input_tokens, reasoning_tokens, tokens_estimated, cost, has_error, error, input_text, output_text, trace_meta, data
        FROM spans
        WHERE project_id = ${projectId} AND trace_id = ANY(${textArray(traceIds)}) AND span_id = ANY(${textArray(spanIds)})`,
  );
  return found.map((r) => ({
    trace_id: r.trace_id as string,
    span_id: r.span_id as string,
    parent_id: (r.parent_id as string | null) ?? null,
    name: (r.name as string | null) ?? null,
    type: r.type as string,
    model: (r.model as string | null) ?? null,
    model_name: (r.model_name as string | null) ?? null,
    vendor: (r.vendor as string | null) ?? null,
    started_at: Number(r.started_at),
    finished_at: Number(r.finished_at),
    first_token_at: num(r.first_token_at),
    prompt_tokens: num(r.prompt_tokens),
    completion_tokens: num(r.completion_tokens),
    cached_input_tokens: num(r.cached_input_tokens),
    reasoning_tokens: num(r.reasoning_tokens),
    tokens_estimated: !!r.tokens_estimated,
    cost: num(r.cost),
    has_error: !!r.has_error,
    error: (r.error as SpanFacts['error']) ?? null,
    input_text: (r.input_text as string | null) ?? null,
    output_text: (r.output_text as string | null) ?? null,
    trace_meta: (r.trace_meta as SpanFacts['trace_meta']) ?? null,
    data: r.data as Record<string, unknown>,
  }));
}

export async function projectExists(tx: Executor, hold: ProjectHold): Promise<boolean> {
  const [r] = await rows<{ n: number }>(tx, sql`SELECT count(*)::int AS n FROM ${hold}`);
  return Number(r?.n) > 0;
}

/** Keeps log events until their span arrives. */
export async function insertPendingLogEvents(
  tx: Executor,
  projectId: string,
  groups: { trace_id: string; span_id: string; events: SpanEvent[] }[],
  receivedAt: number,
): Promise<void> {
  await tx.execute(sql`
    INSERT INTO span_log_events (project_id, trace_id, span_id, received_at, events)
    SELECT ${projectId}, x.trace_id, x.span_id, ${receivedAt}::bigint, x.events
    FROM json_to_recordset(${jsonParam(groups)}::json) AS x(trace_id text, span_id text, events jsonb)`);
}

export async function deletePendingLogEvents(tx: Executor, projectId: string, ids: number[]): Promise<void> {
  await tx.execute(sql`DELETE FROM span_log_events WHERE project_id = ${projectId} AND id = ANY(${textArray(ids.map(String))}::bigint[])`);
}

/** Log events whose span never came, received before `before`. */
export async function prunePendingLogEvents(db: Executor, before: number): Promise<number> {
  const gone = await db.delete(spanLogEvents).where(lt(spanLogEvents.receivedAt, before)).returning({ id: spanLogEvents.id });
  return gone.length;
}

/**
 * Writes summaries and, in the same statement, a `trace.created` event for each trace of
 * `created` (the caller, holding the traces' locks, found no stored span of them).
 */
export async function upsertSummaries(
  tx: Executor,
  scope: { organizationId: string; projectId: string },
  summaries: TraceSummary[],
  days: ReadonlyMap<string, number>,
  created: ReadonlySet<string>,
  at: Date,
): Promise<void> {
  const { organizationId, projectId } = scope;
  if (!summaries.length) return;
  await tx.execute(
    sql`
    WITH x AS (
      SELECT * FROM jsonb_to_recordset(${jsonParam(summaries.map((s, ord) => ({ ...s, day: days.get(s.trace_id), created: created.has(s.trace_id), event_id: newId('evt'), ord })))}::jsonb) AS x(day int, created boolean, trace_id text,
        started_at bigint, finished_at bigint, inserted_at bigint, updated_at bigint, input text, output text, user_id text,
        thread_id text, customer_id text, labels text[], metadata jsonb, models text[], model_names text[], normalized_models text[], span_types text[], span_count int,
        first_token_ms int, total_time_ms int, prompt_tokens int, completion_tokens int, cached_input_tokens int, reasoning_tokens int, tokens_estimated boolean,
        total_cost double precision, has_error boolean, error jsonb, search_text text, indexing_md5 text, event_id text, ord int)
    ), up AS (
    INSERT INTO traces AS t (project_id, trace_id, started_at, finished_at, inserted_at, updated_at, input, output, user_id,
      thread_id, customer_id, labels, metadata, models, model_names, normalized_models, span_types, span_count, first_token_ms, total_time_ms, prompt_tokens,
      completion_tokens, cached_input_tokens, reasoning_tokens, tokens_estimated, total_cost, has_error, error, search_text, indexing_md5, day)
    SELECT ${projectId}, x.trace_id, x.started_at, x.finished_at, x.inserted_at, x.updated_at, x.input, x.output, x.user_id,
      x.thread_id, x.customer_id, x.labels, x.metadata, x.models, x.model_names, x.normalized_models, x.span_types, x.span_count,
      x.first_token_ms, x.total_time_ms, x.prompt_tokens, x.completion_tokens, x.cached_input_tokens, x.reasoning_tokens, x.tokens_estimated, x.total_cost, x.has_error,
      x.error, x.search_text, x.indexing_md5, x.day
    FROM x
    ON CONFLICT (project_id, trace_id, day) DO UPDATE SET
      started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at, updated_at = EXCLUDED.updated_at,
      input = EXCLUDED.input, output = EXCLUDED.output, user_id = EXCLUDED.user_id, thread_id = EXCLUDED.thread_id,
      customer_id = EXCLUDED.customer_id, labels = EXCLUDED.labels, metadata = EXCLUDED.metadata, models = EXCLUDED.models,
      model_names = EXCLUDED.model_names, normalized_models = EXCLUDED.normalized_models,
      span_types = EXCLUDED.span_types, span_count = EXCLUDED.span_count, first_token_ms = EXCLUDED.first_token_ms,
      total_time_ms = EXCLUDED.total_time_ms, prompt_tokens = EXCLUDED.prompt_tokens,
      completion_tokens = EXCLUDED.completion_tokens, cached_input_tokens = EXCLUDED.cached_input_tokens,
      reasoning_tokens = EXCLUDED.reasoning_tokens, tokens_estimated = EXCLUDED.tokens_estimated,
      total_cost = EXCLUDED.total_cost, has_error = EXCLUDED.has_error, error = EXCLUDED.error,
      search_text = EXCLUDED.search_text, indexing_md5 = EXCLUDED.indexing_md5
    RETURNING trace_id, started_at, span_count
    ), created_events AS (
      ${eventsInsertSql(
        'trace.created',
        sql`SELECT x.event_id AS id, ${organizationId}::text AS organization_id, ${projectId}::text AS project_id,
              jsonb_build_object('trace_id', up.trace_id, 'started_at', up.started_at, 'span_count', up.span_count) AS data
            FROM up JOIN x USING (trace_id) WHERE x.created ORDER BY x.ord`,
        at,
      )}
    )
    SELECT count(*) FROM up`,
  );
}

export interface TraceRow extends Omit<TraceSummary, 'search_text' | 'model_names' | 'normalized_models' | 'cached_input_tokens' | 'reasoning_tokens'> {
  project_id: string;
}

const TRACE_COLUMNS = sql.raw(`project_id, trace_id, started_at::float8 AS started_at, finished_at::float8 AS finished_at,
  inserted_at::float8 AS inserted_at, updated_at::float8 AS updated_at, input, output, user_id, thread_id, customer_id,
  labels, metadata, models, span_types, span_count, first_token_ms, total_time_ms, prompt_tokens, completion_tokens,
  tokens_estimated, total_cost, has_error, error, indexing_md5`);

function toTraceRow(r: Record<string, unknown>): TraceRow {
  return {
    project_id: r.project_id as string,
    trace_id: r.trace_id as string,
    started_at: Number(r.started_at),
    finished_at: Number(r.finished_at),
    inserted_at: Number(r.inserted_at),
    updated_at: Number(r.updated_at),
    input: (r.input as string | null) ?? null,
    output: (r.output as string | null) ?? null,
    user_id: (r.user_id as string | null) ?? null,
    thread_id: (r.thread_id as string | null) ?? null,
    customer_id: (r.customer_id as string | null) ?? null,
    labels: (r.labels as string[]) ?? [],
    metadata: (r.metadata as Record<string, unknown>) ?? {},
    models: (r.models as string[]) ?? [],
    span_types: (r.span_types as string[]) ?? [],
    span_count: Number(r.span_count),
    first_token_ms: num(r.first_token_ms),
    total_time_ms: Number(r.total_time_ms ?? 0),
    prompt_tokens: num(r.prompt_tokens),
    completion_tokens: num(r.completion_tokens),
    tokens_estimated: !!r.tokens_estimated,
    total_cost: num(r.total_cost),
    has_error: !!r.has_error,
    error: (r.error as TraceRow['error']) ?? null,
    indexing_md5: (r.indexing_md5 as string) ?? '',
  };
}

export async function findTrace(db: Executor, projectId: string, traceId: string): Promise<TraceRow | null> {
  return (await findTraceAndDay(db, projectId, traceId))?.trace ?? null;
}

/** A trace and the day its rows are stored in (every span of it is in that day's partition). */
async function findTraceAndDay(db: Executor, projectId: string, traceId: string): Promise<{ trace: TraceRow; day: number } | null> {
  const [r] = await rows<Record<string, unknown>>(
    db,
    sql`SELECT ${TRACE_COLUMNS}, day FROM traces WHERE project_id = ${projectId} AND trace_id = ${traceId}`,
  );
  return r ? { trace: toTraceRow(r), day: Number(r.day) } : null;
}

/** A trace with some of its spans, in order, with only what their contents need (see traceContents). */
export interface TraceContentRow {
  trace: TraceRow;
  spans: { span_id: string; type: string; name: string | null; model: string | null; input: unknown; output: unknown; params: Record<string, unknown> | null; contexts?: unknown }[];
}

/**
 * Many traces at once (one statement), with their spans of `spanTypes` (null: every span),
 * each span's input, output and params only. The traces found, in no particular order.
 */
export async function traceContents(db: Executor, projectId: string, traceIds: readonly string[], spanTypes: readonly string[] | null): Promise<TraceContentRow[]> {
  if (!traceIds.length) return [];
  const ofType = spanTypes ? sql`AND s.type = ANY(${textArray(spanTypes)})` : sql``;
  const found = await rows<Record<string, unknown> & { spans_json: string | null }>(
    db,
    sql`SELECT ${TRACE_COLUMNS},
          (SELECT json_agg(json_build_object('span_id', s.span_id, 'type', s.type, 'name', s.name, 'model', s.model,
                    'input', s.data->'input', 'output', s.data->'output', 'params', s.data->'params', 'contexts', s.data->'contexts') ORDER BY s.started_at, s.span_id)::text
           FROM spans s WHERE s.project_id = traces.project_id AND s.trace_id = traces.trace_id ${ofType}) AS spans_json
        FROM traces WHERE project_id = ${projectId} AND trace_id = ANY(${textArray(traceIds)})`,
  );
  return found.map((r) => ({ trace: toTraceRow(r), spans: r.spans_json ? (JSON.parse(r.spans_json) as TraceContentRow['spans']) : [] }));
}

/**
 * A span in its API shape as JSON text built by the database: its columns as a JSON object,
 * joined as text with its stored payload (already the remaining API fields: params, input,
 * output, attributes, ...). PGlite's per-cell conversion of 17 columns per row, and
 * re-parsing json per extracted field, each cost several times this. `payloads: false`
 * leaves the stored payload out (the outline: what a span tree and a waterfall draw).
 * Reads `spans` as `s`.
 */
function spanJsonSql(payloads: boolean): SQL {
  if (!payloads) {
    return sql`row_to_json((SELECT o FROM (SELECT s.span_id, s.parent_id, s.name, s.type, s.model,
            (SELECT t FROM (SELECT s.started_at, s.finished_at, s.first_token_at) t) AS timestamps,
            CASE WHEN s.error IS NULL THEN NULL ELSE json_build_object('message', s.error->>'message') END AS error,
            (SELECT m FROM (SELECT s.prompt_tokens, s.completion_tokens, s.cost) m) AS metrics) o))::text`;
  }
  const base = sql`json_build_object(
            'trace_id', s.trace_id, 'span_id', s.span_id, 'project_id', s.project_id, 'parent_id', s.parent_id, 'name', s.name,
            'type', s.type, 'model', s.model, 'model_name', s.model_name, 'vendor', s.vendor,
            'timestamps', json_build_object('started_at', s.started_at, 'finished_at', s.finished_at,
              'first_token_at', s.first_token_at, 'updated_at', s.updated_at, 'inserted_at', s.inserted_at),
            'error', s.error,
            'metrics', json_build_object('tokens_estimated', s.tokens_estimated, 'prompt_tokens', s.prompt_tokens,
              'completion_tokens', s.completion_tokens, 'cached_input_tokens', s.cached_input_tokens,
              'reasoning_tokens', s.reasoning_tokens, 'cost', s.cost))::text`;
  // right(t, -1): all but the first character, found without counting the others (substr counts them all).
  return sql`CASE WHEN s.data::text = '{}' THEN ${base} ELSE left(${base}, -1) || ',' || right(s.data::text, -1) END`;
}

/** One span of a trace, whole, as JSON text; null when the trace has no such span. */
export async function spanJson(db: Executor, projectId: string, traceId: string, spanId: string): Promise<string | null> {
  const [r] = await rows<{ span: string }>(
    db,
    sql`SELECT ${spanJsonSql(true)} AS span FROM spans s WHERE s.project_id = ${projectId} AND s.trace_id = ${traceId} AND s.span_id = ${spanId}`,
  );
  return r?.span ?? null;
}

/**
 * Spans per page of a streamed trace (~1 KiB each with payloads): about what one download
 * holds at a time. Measured on 10,000 spans (CPU of the whole process, PGlite / PostgreSQL):
 * the answer built whole 281-297 / 32 ms; pages as rows, 250 a FETCH 315-350 / 31-36 ms,
 * 1,000 a FETCH 294-325 / 30-41 ms; pages aggregated by the database (one text a FETCH) of
 * 1,000 289-345 / 23 ms. Aggregated pages of 500: no per-row decoding, ~0.5 MiB held.
 */
const SPAN_PAGE = 500;
let cursors = 0;

/**
 * A trace and every span of it, ordered by (started_at, span_id), in its API shape, read
 * page by page from one snapshot; null (and nothing held) when there is no such trace.
 * `next()` answers the spans' JSON texts joined with commas, a page at a time (every page
 * after the first starts with a comma), then null; `close()` must be called once, whatever
 * happens.
 *
 * How: the trace row is read and a WITH HOLD cursor declared in one REPEATABLE READ
 * transaction, which commits at once; the commit materializes the cursor's rows in the
 * database (a tuplestore, on disk beyond work_mem), and FETCHes read them later, outside any
 * transaction, from that snapshot. Spans ingested meanwhile never tear the answer, and no
 * transaction stays open while a slow client downloads: on PGlite, whose one connection
 * ingest shares, each FETCH is a short statement between ingest transactions (holding a
 * transaction open would stop ingest for the whole download; reading every page at once
 * would hold the whole answer in memory again, which is what streaming avoids). The cursor
 * lives on its connection: on PostgreSQL that connection is kept from the pool until close.
 * Measured (10,000 spans, PGlite): the materializing commit costs about what the single
 * statement building the whole answer did (247 against 281-297 ms of CPU); memory: see
 * bench/detail-downloads.ts.
 */
export async function openTraceSpans(
  db: Database,
  projectId: string,
  traceId: string,
  options: { payloads: boolean },
): Promise<{ trace: TraceRow; next(): Promise<string | null>; close(): Promise<void> } | null> {
  // A replica when one is past the client's writes (DATABASE_READ_URL), else the primary.
  const session = (await db.reads.session()) ?? (await reserveSession(db));
  const cursor = sql.raw(`trace_spans_${++cursors}`);
  const page = sql.raw(String(SPAN_PAGE));
  let trace: TraceRow | null;
  try {
    trace = await session.exec.transaction(
      async (tx) => {
        const found = await findTraceAndDay(tx, projectId, traceId);
        if (!found) return null;
        // The trace's day: its spans' one partition, chosen as the statement is planned (not 30 looked into).
        await tx.execute(sql`DECLARE ${cursor} NO SCROLL CURSOR WITH HOLD FOR
          SELECT CASE WHEN min(p.n) = 0 THEN '' ELSE ',' END || string_agg(p.span, ',' ORDER BY p.n) AS page
          FROM (SELECT ${spanJsonSql(options.payloads)} AS span, row_number() OVER (ORDER BY s.started_at, s.span_id) - 1 AS n
                FROM spans s WHERE s.project_id = ${projectId} AND s.trace_id = ${traceId} AND s.day = ${found.day}) p
          GROUP BY p.n / ${page} ORDER BY p.n / ${page}`);
        return found.trace;
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
  } catch (err) {
    session.release(true);
    throw err;
  }
  if (!trace) {
    session.release();
    return null;
  }
  let failed = false;
  return {
    trace,
    next: async () => {
      try {
        const [r] = await rows<{ page: string }>(session.exec, sql`FETCH 1 FROM ${cursor}`);
        return r?.page ?? null;
      } catch (err) {
        failed = true;
        throw err;
      }
    },
    close: async () => {
      try {
        await session.exec.execute(sql`CLOSE ${cursor}`);
      } catch {
        failed = true;
      } finally {
        session.release(failed);
      }
    },
  };
}

export type SortColumn = 'started_at' | 'total_cost' | 'total_time_ms';

export interface SearchQuery {
  projectId: string;
  where: SQL[];
  /** A column of `traces`, or another module's value per trace (a score's mean, its typed relation). */
  order: { column: SortColumn } | { values: ScoreMeansRelation };
  direction: 'asc' | 'desc';
  after: { value: number | null; traceId: string } | null;
  limit: number;
  /**
   * Newest first by start time only: where the first page's newest traces start (`from`, the
   * search's snapshot time), and whether the search has words (a text query). The page is first
   * looked for among the traces started within a day of `from` (or of the last trace served),
   * then within 8 days, then among all.
   */
  newestFirst?: { from: number; text: boolean };
}

/**
 * The time windows a newest-first page is looked for in before all traces are: the page of a
 * window that fills it is the page of the whole range, since every trace outside it started
 * earlier than every trace inside. Without them, a text query on a common word read its matches
 * in every day's partition (a GIN bitmap each) and sorted them all for one page; within a
 * window, the (project_id, started_at) index finds the day's traces. When 8 days hold less than
 * a page of a text query's matches, the words are rare: the last try reads them through the
 * full-text index and sorts them, never walking every trace of every day in time order to test
 * each (which PostgreSQL chose for a rare word, misjudging how many traces have it: 2.7 s at
 * 1M traces, none of which matched). The price: a search finding less than a page (a small
 * project, a narrow filter) runs three statements instead of one, each cheap at that size.
 */
const NEWEST_FIRST_WINDOWS_MS = [DAY_MS, 8 * DAY_MS];

/** Exact counts stop here: beyond, totalHits says "at least" (counting 100k rows per page costs more than the page). */
export const MAX_COUNTED_HITS = 10_000;

/**
 * Keyset page ordered as the indexes are: (column DESC NULLS LAST, trace_id DESC), or its
 * exact reverse for ascending pages (NULLs first). Ordered by joined values (a score), traces
 * without one come last in both directions: who sorts by a score wants the scored traces.
 */
export async function searchTraces(db: Executor, q: SearchQuery): Promise<{ rows: (TraceRow & { sort_value: number | null })[] }> {
  const newest = q.direction === 'desc' && 'column' in q.order && q.order.column === 'started_at' ? q.newestFirst : undefined;
  if (!newest) return searchPage(db, q, sql`TRUE`, true);
  const top = q.after?.value ?? newest.from;
  for (const window of NEWEST_FIRST_WINDOWS_MS) {
    const page = await searchPage(db, q, sql`traces.started_at >= ${top - window}`, true);
    if (page.rows.length === q.limit) return page;
  }
  return searchPage(db, q, sql`TRUE`, !newest.text);
}

/** One try of `searchTraces`: its page among the traces `within`; `indexOrder` false: sorted, not read in an index's order. */
async function searchPage(db: Executor, q: SearchQuery, within: SQL, indexOrder: boolean): Promise<{ rows: (TraceRow & { sort_value: number | null })[] }> {
  const desc = q.direction === 'desc';
  const joined = 'values' in q.order;
  // Qualified: the select list's float8 aliases of the same names would otherwise shadow the indexed columns.
  const col = 'values' in q.order ? sql`${q.order.values.mean}` : sql.raw(`traces.${q.order.column}`);
  const join = 'values' in q.order ? sql`LEFT JOIN ${q.order.values} ON ${q.order.values.traceId} = traces.trace_id` : sql``;
  const base = sql.join([sql`traces.project_id = ${q.projectId}`, ...q.where], sql` AND `);
  const id = sql`traces.trace_id`;
  let keyset = sql`TRUE`;
  if (q.after) {
    const { value: v, traceId: t } = q.after;
    const past = desc ? sql`<` : sql`>`;
    // Where NULLs sit: last when descending or joined, first when ascending a column.
    const nullsLast = desc || joined;
    if (v === null) keyset = nullsLast ? sql`(${col} IS NULL AND ${id} ${past} ${t})` : sql`((${col} IS NULL AND ${id} ${past} ${t}) OR ${col} IS NOT NULL)`;
    else keyset = sql`(${col} ${past} ${v} OR (${col} = ${v} AND ${id} ${past} ${t})${nullsLast ? sql` OR ${col} IS NULL` : sql``})`;
  }
  // started_at is NOT NULL and its index is plain DESC; the nullable sort columns' indexes are DESC NULLS LAST.
  const nulls = joined ? sql` NULLS LAST` : (q.order as { column: SortColumn }).column === 'started_at' ? sql`` : desc ? sql` NULLS LAST` : sql` NULLS FIRST`;
  // `+ 0`: the same values, in no index's order.
  const sorted = indexOrder ? col : sql`(${col} + 0)`;
  const order = desc ? sql`${sorted} DESC${nulls}, ${id} DESC` : sql`${sorted} ASC${nulls}, ${id} ASC`;
  const page = await rows<Record<string, unknown>>(
    db,
    sql`SELECT ${TRACE_COLUMNS}, ${joined ? sql`${col}::float8` : sql`NULL::float8`} AS sort_value FROM traces ${join} WHERE ${base} AND ${keyset} AND ${within} ORDER BY ${order} LIMIT ${q.limit}`,
  );
  return { rows: page.map((r) => ({ ...toTraceRow(r), sort_value: num(r.sort_value) })) };
}

/** Matching traces, most recently stored first (read by the (project_id, inserted_at) index). */
export async function recentlyInserted(db: Executor, projectId: string, where: SQL[], limit: number): Promise<TraceRow[]> {
  const base = sql.join([sql`project_id = ${projectId}`, ...where], sql` AND `);
  const found = await rows<Record<string, unknown>>(
    db,
    sql`SELECT ${TRACE_COLUMNS} FROM traces WHERE ${base} ORDER BY traces.inserted_at DESC, traces.trace_id DESC LIMIT ${limit}`,
  );
  return found.map(toTraceRow);
}

/** Matching traces, counted up to MAX_COUNTED_HITS + 1. */
/** Trace ids another module holds (topics: the traces it embedded), as a typed relation its owner's store builds. */
export type TraceIdsRelation = Subquery & { traceId: SQLWrapper };

/**
 * Which traces' inputs `traceInputs` reads: these ids; or those first ingested from
 * `insertedFrom` (epoch ms; null: any time) whose id `without` does not hold.
 */
export type TraceInputsPick = { traceIds: readonly string[] } | { insertedFrom: number | null; without: TraceIdsRelation };

/** Traces' inputs, newest first (or in the order they were first ingested), of the traces `pick` names. */
export async function traceInputs(
  db: Executor,
  projectId: string,
  pick: TraceInputsPick,
  limit: number,
  order: 'newest' | 'ingested' = 'newest',
): Promise<{ trace_id: string; started_at: number; inserted_at: number; input: string | null }[]> {
  const where = [sql`project_id = ${projectId}`];
  if ('traceIds' in pick) where.push(sql`trace_id = ANY(${textArray(pick.traceIds)})`);
  else {
    if (pick.insertedFrom !== null) where.push(sql`inserted_at >= ${pick.insertedFrom}`);
    where.push(sql`NOT EXISTS (SELECT 1 FROM ${pick.without} WHERE ${pick.without.traceId} = traces.trace_id)`);
  }
  const orderBy = order === 'newest' ? sql`started_at DESC, trace_id` : sql`inserted_at, trace_id`;
  const found = await rows<{ trace_id: string; started_at: number; inserted_at: number; input: string | null }>(
    db,
    sql`SELECT trace_id, started_at, inserted_at, input FROM traces WHERE ${sql.join(where, sql` AND `)} ORDER BY ${orderBy} LIMIT ${limit}`,
  );
  return found.map((r) => ({ trace_id: r.trace_id, started_at: Number(r.started_at), inserted_at: Number(r.inserted_at), input: r.input }));
}

export async function countTraces(db: Executor, projectId: string, where: SQL[]): Promise<number> {
  const base = sql.join([sql`project_id = ${projectId}`, ...where], sql` AND `);
  const [r] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM traces WHERE ${base} LIMIT ${MAX_COUNTED_HITS + 1}) m`);
  return Number(r.n);
}

export async function findShareByTrace(db: Executor, projectId: string, traceId: string): Promise<string | null> {
  const [r] = await db
    .select({ token: traceShares.token })
    .from(traceShares)
    .where(and(eq(traceShares.projectId, projectId), eq(traceShares.traceId, traceId)));
  return r?.token ?? null;
}

/**
 * Inserts a share, or answers the token of the existing one (sharing twice gives the same
 * path); either way the share hides what `options` says from then on.
 */
export async function insertShare(db: Executor, projectId: string, traceId: string, token: string, at: Date, options: ShareOptions): Promise<{ token: string; created: boolean }> {
  const inserted = await rows<{ token: string }>(
    db,
    sql`INSERT INTO trace_shares (token, project_id, trace_id, created_at, hide_user, hide_metadata, hide_span_attributes)
        VALUES (${token}, ${projectId}, ${traceId}, ${at}, ${options.hide_user}, ${options.hide_metadata}, ${options.hide_span_attributes})
        ON CONFLICT (project_id, trace_id) DO NOTHING RETURNING token`,
  );
  if (inserted.length) return { token: inserted[0].token, created: true };
  const [kept] = await rows<{ token: string }>(
    db,
    sql`UPDATE trace_shares SET hide_user = ${options.hide_user}, hide_metadata = ${options.hide_metadata}, hide_span_attributes = ${options.hide_span_attributes}
        WHERE project_id = ${projectId} AND trace_id = ${traceId} RETURNING token`,
  );
  return { token: kept.token, created: false };
}

/** What a trace's share hides (null: not shared). */
export async function findShareOptions(db: Executor, projectId: string, traceId: string): Promise<ShareOptions | null> {
  const [r] = await rows<ShareOptions>(db, sql`SELECT hide_user, hide_metadata, hide_span_attributes FROM trace_shares WHERE project_id = ${projectId} AND trace_id = ${traceId}`);
  return r ?? null;
}

export async function deleteShare(db: Executor, projectId: string, traceId: string): Promise<boolean> {
  const deleted = await db
    .delete(traceShares)
    .where(and(eq(traceShares.projectId, projectId), eq(traceShares.traceId, traceId)))
    .returning({ token: traceShares.token });
  return deleted.length > 0;
}

export async function findShare(db: Executor, token: string): Promise<{ projectId: string; traceId: string; options: ShareOptions } | null> {
  const [r] = await rows<{ project_id: string; trace_id: string } & ShareOptions>(
    db,
    sql`SELECT project_id, trace_id, hide_user, hide_metadata, hide_span_attributes FROM trace_shares WHERE token = ${token}`,
  );
  return r ? { projectId: r.project_id, traceId: r.trace_id, options: { hide_user: r.hide_user, hide_metadata: r.hide_metadata, hide_span_attributes: r.hide_span_attributes } } : null;
}

/** Deletes up to `limit` of the oldest traces (and their spans and shares) that started before the cut-off. */
export async function deleteTracesBefore(tx: Executor, projectId: string, cutoff: number, limit: number): Promise<string[]> {
  const gone = await rows<{ trace_id: string }>(
    tx,
    sql`DELETE FROM traces WHERE project_id = ${projectId} AND trace_id IN (
          SELECT trace_id FROM traces WHERE project_id = ${projectId} AND started_at < ${cutoff} ORDER BY started_at LIMIT ${limit})
        RETURNING trace_id`,
  );
  if (!gone.length) return [];
  const ids = textArray(gone.map((g) => g.trace_id));
  await tx.execute(sql`DELETE FROM spans WHERE project_id = ${projectId} AND trace_id = ANY(${ids})`);
  await tx.execute(sql`DELETE FROM trace_shares WHERE project_id = ${projectId} AND trace_id = ANY(${ids})`);
  return gone.map((g) => g.trace_id);
}

/** The traces stored in one day's partition, by project. */
export async function tracesOfDay(db: Executor, day: number): Promise<{ projectId: string; traceIds: string[] }[]> {
  const found = await rows<{ project_id: string; trace_ids: string[] }>(
    db,
    sql`SELECT project_id, array_agg(trace_id) AS trace_ids FROM traces WHERE day = ${day} GROUP BY project_id`,
  );
  return found.map((r) => ({ projectId: r.project_id, traceIds: r.trace_ids }));
}

/** The day a stored trace is kept in; null when it is not stored. */
export async function traceDay(db: Executor, projectId: string, traceId: string): Promise<number | null> {
  const [found] = await rows<{ day: number }>(db, sql`SELECT day FROM traces WHERE project_id = ${projectId} AND trace_id = ${traceId} LIMIT 1`);
  return found ? Number(found.day) : null;
}

/** The shares of these traces (their day is being dropped). */
export async function deleteShares(tx: Executor, projectId: string, traceIds: string[]): Promise<void> {
  await tx.execute(sql`DELETE FROM trace_shares WHERE project_id = ${projectId} AND trace_id = ANY(${textArray(traceIds)})`);
}

/** Every trace and span of a project (the project is being deleted; shares go by foreign key). */
export async function deleteProjectTraces(tx: Executor, projectId: string): Promise<void> {
  await tx.delete(spanLogEvents).where(eq(spanLogEvents.projectId, projectId));
  await tx.delete(spansTable).where(eq(spansTable.projectId, projectId));
  await tx.delete(tracesTable).where(eq(tracesTable.projectId, projectId));
}

/** How many span ids a search inside one trace answers at most. */
export const MAX_SPAN_MATCHES = 10_000;

/** A chat payload's messages (`{type: 'chat_messages', value: [...]}`), else none. */
const chatMessages = (payload: SQL) =>
  sql`json_array_elements(CASE WHEN ${payload}->>'type' = 'chat_messages' AND json_typeof(${payload}->'value') = 'array' THEN ${payload}->'value' ELSE '[]'::json END)`;
/** A JSON value as the text a reader sees: a string without its quotes, anything else as JSON. */
const jsonText = (value: SQL) => sql`(CASE WHEN json_typeof(${value}) = 'string' THEN (${value}) #>> '{}' ELSE (${value})::text END)`;
/** Whether some value of a JSON object (a span's attributes or resource) contains the pattern. */
const someValueLike = (object: SQL, pattern: string) =>
  sql`EXISTS (SELECT 1 FROM json_each(CASE WHEN json_typeof(${object}) = 'object' THEN ${object} ELSE '{}'::json END) a WHERE ${jsonText(sql`a.value`)} ILIKE ${pattern})`;
/** Whether some message of a chat payload contains the pattern. */
const someMessageLike = (payload: SQL, pattern: string) =>
  sql`EXISTS (SELECT 1 FROM ${chatMessages(payload)} m WHERE ${jsonText(sql`m.value->'content'`)} ILIKE ${pattern})`;

/**
 * Spans of one trace whose name, type, model, error message, input, output (every message of a
 * chat) or attribute values (the span's own and its resource's) contain `needle`,
 * case-insensitive, in start order. One pass over the trace's rows (the primary key finds
 * them); values are matched in their text, the keys and message roles left out so that "model"
 * does not find every span with a model attribute, nor "user" every chat.
 */
export async function matchingSpanIds(db: Executor, projectId: string, traceId: string, needle: string): Promise<{ ids: string[]; truncated: boolean }> {
  const pattern = containsPattern(needle);
  // Every `->` parses the span's stored JSON text again. Text without a character JSON escapes
  // (quotes, backslashes, control characters) is in a value only if it is in that stored text
  // as it is: spans whose text lacks it are not parsed at all.
  const inData = sql`(${someMessageLike(sql`s.data->'input'`, pattern)} OR ${someMessageLike(sql`s.data->'output'`, pattern)}
    OR ${someValueLike(sql`s.data->'attributes'`, pattern)} OR ${someValueLike(sql`s.data->'resource'`, pattern)})`;
  // eslint-disable-next-line no-control-regex
  const guarded = /["\\\u0000-\u001f]/.test(needle) ? inData : sql`(s.data::text ILIKE ${pattern} AND ${inData})`;
  const found = await rows<{ span_id: string }>(
    db,
    sql`SELECT s.span_id FROM spans s
        WHERE s.project_id = ${projectId} AND s.trace_id = ${traceId}
          AND (s.name ILIKE ${pattern} OR s.type ILIKE ${pattern} OR s.model ILIKE ${pattern}
            OR s.error->>'message' ILIKE ${pattern} OR s.input_text ILIKE ${pattern} OR s.output_text ILIKE ${pattern}
            OR ${guarded})
        ORDER BY s.started_at, s.span_id LIMIT ${MAX_SPAN_MATCHES + 1}`,
  );
  return { ids: found.slice(0, MAX_SPAN_MATCHES).map((r) => r.span_id), truncated: found.length > MAX_SPAN_MATCHES };
}

export async function traceExists(db: Executor, projectId: string, traceId: string): Promise<boolean> {
  const [r] = await rows<{ one: number }>(db, sql`SELECT 1 AS one FROM traces WHERE project_id = ${projectId} AND trace_id = ${traceId}`);
  return !!r;
}

/** Privacy's records of a trace's spans (what was redacted from each, no values): spans without one are skipped. */
export async function spanRedactions(db: Executor, projectId: string, traceId: string): Promise<Record<string, Record<string, number>>[]> {
  const found = await rows<{ counts: Record<string, Record<string, number>> }>(
    db,
    // Most spans have none: their payload text is searched for the key (a few µs a span) before
    // any is parsed as JSON (10 µs a span and more; 100 ms for 10,000, under load).
    sql`SELECT data->'redactions' AS counts FROM spans WHERE project_id = ${projectId} AND trace_id = ${traceId}
        AND CASE WHEN strpos(data::text, '"redactions"') > 0 THEN data->'redactions' IS NOT NULL ELSE false END`,
  );
  return found.map((r) => r.counts);
}

// ---- Saved views of the traces list (trace_views)

export type TraceViewRow = typeof traceViews.$inferSelect;

export async function listViews(db: Executor, projectId: string): Promise<TraceViewRow[]> {
  return db.select().from(traceViews).where(eq(traceViews.projectId, projectId)).orderBy(traceViews.name, traceViews.id);
}

export async function findView(db: Executor, projectId: string, id: string): Promise<TraceViewRow | null> {
  const [r] = await db.select().from(traceViews).where(and(eq(traceViews.projectId, projectId), eq(traceViews.id, id)));
  return r ?? null;
}

export async function insertView(db: Executor, row: TraceViewRow): Promise<TraceViewRow> {
  const [r] = await db.insert(traceViews).values(row).returning();
  return r;
}

export async function updateView(db: Executor, projectId: string, id: string, set: Partial<Pick<TraceViewRow, 'name' | 'search' | 'columns' | 'updatedAt'>>): Promise<TraceViewRow | null> {
  const [r] = await db.update(traceViews).set(set).where(and(eq(traceViews.projectId, projectId), eq(traceViews.id, id))).returning();
  return r ?? null;
}

export async function deleteView(db: Executor, projectId: string, id: string): Promise<boolean> {
  const deleted = await db.delete(traceViews).where(and(eq(traceViews.projectId, projectId), eq(traceViews.id, id))).returning({ id: traceViews.id });
  return deleted.length > 0;
}

export { isUniqueViolation } from '../../db/index.ts';

/** Planner statistics of the trace tables (retention.ts: refreshStatistics). */
export async function analyzeTraceTables(db: Executor): Promise<void> {
  await db.execute(sql`ANALYZE traces, spans`);
}
