import type { Readable } from 'node:stream';
import { json } from 'node:stream/consumers';
import { notFound } from '../../platform/errors.ts';
import { pagedStream } from '../../platform/paged-stream.ts';
import * as store from './store.ts';
import { traceView, type TraceDetail } from './presenters.ts';
import { redactSpanPage, redactTraceHead, type ShareOptions } from './share-redaction.ts';
import type { TraceContext } from './context.ts';

// Reading traces: one trace's detail (streamed), its outline, one span; many traces' contents.

/** Traces per call of `contents`: one statement each, a few MiB of payloads at most. */
export const TRACE_CONTENTS_PAGE = 500;

/** A trace's contents (see `contents`). */
export interface TraceContents {
  trace_id: string;
  input: { value: string };
  output: { value: string };
  metadata: Record<string, unknown>;
  spans: store.TraceContentRow['spans'];
}

/** PostgreSQL: how long a trace download may keep its pooled connection waiting for the client. */
const STREAM_HOLD_MS = 10_000;
/**
 * The trace detail as a stream of JSON text, read from the database as the client takes
 * it: a 10,000-span trace with payloads is ~10 MiB, which was held whole three times over
 * (the database's result, the string, the reply). 404 before the first byte when there is
 * no such trace. `outline`: the spans without their payloads (input, output, params,
 * attributes, events).
 */
export async function detailStream(ctx: TraceContext, projectId: string, traceId: string, options: { outline?: boolean; redact?: ShareOptions } = {}): Promise<Readable> {
  const [opened, evaluated, recorded] = await Promise.allSettled([
    store.openTraceSpans(ctx.db, projectId, traceId, { payloads: !options.outline }),
    traceEvaluations(ctx, projectId, traceId),
    redactions(ctx, projectId, traceId),
  ]);
  if (opened.status === 'rejected') throw opened.reason;
  const spans = opened.value;
  if (evaluated.status === 'rejected' || recorded.status === 'rejected') {
    await spans?.close();
    throw evaluated.status === 'rejected' ? evaluated.reason : (recorded as PromiseRejectedResult).reason;
  }
  if (!spans) throw notFound('trace_not_found', `no trace ${traceId} in this project`);
  const evaluations = evaluated.value;
  const { redact } = options;
  const view = { ...traceView(spans.trace), evaluations, redactions: recorded.value };
  const head = JSON.stringify(redact ? redactTraceHead(view, redact) : view);
  // A share's visitors: each page of spans without what the share hides.
  const source = redact ? { next: async () => ((page) => (page === null ? null : redactSpanPage(page, redact)))(await spans.next()), close: () => spans.close() } : spans;
  // PostgreSQL: the stream keeps a pooled connection (its cursor lives there), so a slow
  // client gets the rest buffered after a while rather than holding it for ever.
  return pagedStream(`${head.slice(0, -1)},"spans":[`, source, ']}', { hurryAfterMs: ctx.db.kind === 'postgres' ? STREAM_HOLD_MS : undefined });
}

async function traceEvaluations(ctx: TraceContext, projectId: string, traceId: string): Promise<Record<string, unknown>[]> {
  const reads = await ctx.db.reads.executor();
  const lists = await Promise.all(ctx.extensions.map(async (e) => (await e.evaluations?.(reads, projectId, traceId)) ?? []));
  return lists.flat();
}

/** What privacy at ingest removed from the trace (counts, no values), or null. */
async function redactions(ctx: TraceContext, projectId: string, traceId: string): Promise<Record<string, unknown> | null> {
  const privacy = ctx.extensions.find((e) => e.redactionRecord !== undefined);
  if (!privacy?.redactionRecord) return null;
  const counts = await store.spanRedactions(await ctx.db.reads.executor(), projectId, traceId);
  return counts.length > 0 ? privacy.redactionRecord(counts) : null;
}

/** One span of a trace, whole, as JSON text. */
export async function spanJson(ctx: TraceContext, projectId: string, traceId: string, spanId: string): Promise<string> {
  const span = await store.spanJson(await ctx.db.reads.executor(), projectId, traceId, spanId);
  if (span === null) throw notFound('span_not_found', `no span ${spanId} in trace ${traceId}`);
  return span;
}

/**
 * Spans of a trace whose name, type, model, input, output, error message or attribute values
 * contain the text (the trace page's search: its outline has none of the last four). 404 when there is no such trace.
 */
export async function searchSpans(ctx: TraceContext, projectId: string, traceId: string, q: string): Promise<{ span_ids: string[]; truncated: boolean }> {
  const reads = await ctx.db.reads.executor();
  const [found, exists] = await Promise.all([store.matchingSpanIds(reads, projectId, traceId, q), store.traceExists(reads, projectId, traceId)]);
  if (!exists) throw notFound('trace_not_found', `no trace ${traceId} in this project`);
  return { span_ids: found.ids, truncated: found.truncated };
}

/**
 * What many traces hold, read a page at a time (datasets built from traces): each trace's
 * input, output and metadata as its detail has them, and its spans of `spanTypes` (null:
 * every span) in the detail's order with their name, model, input, output and params. At
 * most TRACE_CONTENTS_PAGE ids a call; ids of no trace are left out of the map.
 */
export async function contents(ctx: TraceContext, projectId: string, traceIds: readonly string[], spanTypes: readonly string[] | null): Promise<Map<string, TraceContents>> {
  if (traceIds.length > TRACE_CONTENTS_PAGE) throw new Error(`contents: at most ${TRACE_CONTENTS_PAGE} traces a call, not ${traceIds.length}`);
  const found = await store.traceContents(await ctx.db.reads.executor(), projectId, traceIds, spanTypes);
  return new Map(
    found.map(({ trace, spans }) => {
      const { trace_id, input, output, metadata } = traceView(trace);
      return [trace_id, { trace_id, input, output, metadata, spans }];
    }),
  );
}

/** The trace detail as objects (monitors). */
export async function detail(ctx: TraceContext, projectId: string, traceId: string): Promise<TraceDetail> {
  return (await json(await detailStream(ctx, projectId, traceId))) as TraceDetail;
}

/** Traces' inputs, newest first or as first ingested: of these ids, or of those ingested since a time that another module's ids leave out (topics embed what they have not seen). */
export async function traceInputs(ctx: TraceContext, projectId: string, pick: store.TraceInputsPick, limit: number, order?: 'newest' | 'ingested') {
  return store.traceInputs(ctx.db.orm, projectId, pick, limit, order);
}
