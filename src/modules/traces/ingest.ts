import { notFound } from '../../platform/errors.ts';
import type { Executor } from '../../db/index.ts';
import { dayOf } from '../../db/day-partitions.ts';
import { GroupCommit } from '../../platform/group-commit.ts';
import type { Metrics } from '../../platform/metrics.ts';
import type { Admission, RateLimiter } from '../../platform/admission.ts';
import { mapInTurns } from '../../platform/turns.ts';
import { inflatedSizeBound, mergeGenAiLogEvents, OtlpDecoder, truncateSpan, type DecodedTraces, type OtlpDecoderOptions, type LogsDecodeResult, type NormalizedSpan, type SpanEvent, type SpanLogEvents, type SpanType } from './ingest/index.ts';
import * as store from './store.ts';
import { redactPiece, redactSpanRow } from './redact-rows.ts';
import { INGEST_PIECE_SPANS, joinRowsInPieces, prepareSpanRow, rowCount, rowsInPieces, splitRows, toSpanRow, unprepareSpanRow, type PreparedRows, type PreparedSpanRow, type RowPiece, type SpanRow } from './span-rows.ts';
import { summarizeTrace, type SpanFacts } from './summary.ts';
import type { TraceContext, ValueRedactor } from './context.ts';

/** Which way spans came in, as /metrics counts privacy's findings. */
export type IngestPath = 'otlp' | 'otlp_logs' | 'collector' | 'playground' | 'experiment_runs' | (string & {});

/**
 * Ingest transactions at once (`writers`) and spans per transaction, by database, with no
 * reads coming in and while they do (docs/operating.md: Overload). PGlite runs one at a time, and a read
 * waits for the one in progress: while reads come in it takes one piece of a request, so a
 * read waits for a short one. On PostgreSQL the process's main thread does the transactions'
 * work in JavaScript (summaries, the statements' text, the results) and answers the reads:
 * one smaller transaction at a time leaves it time for them, and the pool's other
 * connections stay for reads either way.
 */
const INGEST_TRANSACTIONS = {
  pglite: { idle: { writers: 1, spans: 2_000 }, reading: { writers: 1, spans: INGEST_PIECE_SPANS } },
  postgres: { idle: { writers: 3, spans: 5_000 }, reading: { writers: 1, spans: 1_000 } },
} as const;
/** Spans made into rows per turn of the event loop (collector and prompt spans): a few ms of work. */
const SPANS_PER_TURN = 250;
/** Spans redacted per turn of the event loop (privacy at ingest): PII detection takes ms per KiB of text. */
const REDACTED_SPANS_PER_TURN = 4;
/**
 * Threads decoding OTLP request bodies (docs/operating.md: Overload). One: on 2 cores, with PGlite in a
 * thread of its own, a second decoder made the main thread's event-loop delay p99 and the
 * committed spans per second worse (bench/overload.ts, both at the process's priority: 167-186 ms vs
 * 109-112 ms, 1,733-1,836 vs 2,446-3,299 spans/s).
 */
const OTLP_DECODE_THREADS = 1;
/** The one key of the budget of decompressed OTLP bytes: it bounds the process, not each project. */
const OTLP_BYTES_KEY = 'otlp';
/** Clock skew tolerated on incoming span times; later spans are refused. */
const MAX_CLOCK_SKEW_MS = 24 * 60 * 60 * 1000;

/** How ingest is kept within what the database can commit (docs/operating.md: Overload). */
export interface IngestControl {
  admission: Admission;
  /** Decompressed bytes of OTLP bodies in flight, for the process (SPYGLASS_INGEST_QUEUE_BYTES). */
  otlpBytes: Admission;
  /** A span's values past this many bytes keep their first part (SPYGLASS_MAX_ATTRIBUTE_BYTES). */
  maxValueBytes: number;
  rateLimiter: RateLimiter;
  /** Awaited before each ingest transaction (reads first, on PGlite). */
  beforeWrite?: () => Promise<void>;
  /** Whether read requests are in progress or were a moment ago (ingest transactions are then fewer and shorter). */
  reading?: () => boolean;
}

/** Spans of one ingest request, converted to rows, waiting for their transaction. */
interface IngestBatch {
  organizationId: string;
  projectId: string;
  rows: RowPiece;
  count: number;
}

/**
 * Ingest: spans (collector, prompts, OTLP rows made by the decode worker) and OTLP log
 * events, admitted against the queues, written by group commit with their traces' summaries.
 */
export class TraceIngest {
  private readonly ingestCommits: GroupCommit<IngestBatch>;
  /** OTLP request bodies to rows, on worker threads (the routes hand it the bodies). */
  readonly otlpDecoder: OtlpDecoder;

  constructor(
    private readonly ctx: TraceContext,
    private readonly control: IngestControl,
    decoding: Omit<OtlpDecoderOptions, 'threads'>,
    private readonly metrics: Metrics,
  ) {
    const { db } = ctx;
    this.otlpDecoder = new OtlpDecoder({ threads: OTLP_DECODE_THREADS, ...decoding });
    const transactions = () => INGEST_TRANSACTIONS[db.kind][control.reading?.() ? 'reading' : 'idle'];
    this.ingestCommits = new GroupCommit((batches) => this.writeSpans(batches), {
      // PGlite runs one transaction at a time; PostgreSQL gains from a second one writing
      // while the first waits on the network.
      maxConcurrent: db.kind === 'pglite' ? 1 : 2,
      maxConcurrentTotal: () => transactions().writers,
      maxWeight: () => transactions().spans,
      weight: (b) => b.count,
      beforeWrite: control.beforeWrite,
    });
  }

  /**
   * Before an ingest request's body is read: the per-key rate (429) and whether its project's
   * queue and the process's have room (503). Both carry Retry-After.
   */
  checkIngestRequest(keyId: string, projectId: string): void {
    this.control.rateLimiter.take(keyId);
    this.control.admission.checkRoom(projectId);
  }

  /** checkIngestRequest, and whether the process's budget of decompressed OTLP bytes has room (503). */
  checkOtlpRequest(keyId: string, projectId: string): void {
    this.checkIngestRequest(keyId, projectId);
    this.control.otlpBytes.checkRoom(OTLP_BYTES_KEY);
  }

  /**
   * Before an OTLP body is inflated: what it may inflate to (a gzip body that says more than the
   * limit answers 413 at once), admitted against the process's budget of decompressed bytes in
   * flight, or a 503 with Retry-After. `release` gives the bytes back once the request is answered.
   */
  admitOtlpBody(body: Buffer, contentEncoding: string): { maxInflatedBytes: number; release: () => void } {
    const maxInflatedBytes = inflatedSizeBound(body, contentEncoding);
    return { maxInflatedBytes, release: this.control.otlpBytes.admit(OTLP_BYTES_KEY, maxInflatedBytes) };
  }

  /** Spans waiting for their commit, and the bound (readiness reports it). */
  get ingestLoad() {
    return { ...this.control.admission.load, full: this.control.admission.full, shed: this.control.admission.shed, admitted: this.control.admission.admitted };
  }

  /** Epoch ms past which a span's start or end is refused: the server's clock plus a day of skew. */
  latestSpanTime(): number {
    return this.ctx.clock.now().getTime() + MAX_CLOCK_SKEW_MS;
  }

  /**
   * Writes a batch of spans and refreshes the summaries of the traces they touch: when this
   * returns, the spans are committed and searchable. Concurrent batches of one project are
   * written together (group commit): one transaction per round instead of one per request.
   */
  async ingest(organizationId: string, projectId: string, spans: NormalizedSpan[], path: IngestPath = 'collector'): Promise<void> {
    if (!spans.length) return;
    await this.ingestRows(organizationId, projectId, spans.length, path, async (redactor) => {
      // Only the prepared rows wait for the commit (not `spans`, whose objects can then die young).
      // Redacted before they are written as JSON text (privacy at ingest), not read back from it.
      const toRow = (s: NormalizedSpan) => {
        truncateSpan(s, this.control.maxValueBytes);
        const row = toSpanRow(s);
        return prepareSpanRow(redactor ? redactSpanRow(row, redactor) : row);
      };
      if (redactor?.prepare) {
        // The texts searched ahead, all at once (privacy's detection workers), then the rows redacted.
        const rows = await mapInTurns(spans, SPANS_PER_TURN, (s) => {
          truncateSpan(s, this.control.maxValueBytes);
          return toSpanRow(s);
        });
        await redactor.prepare(() => {
          for (const row of rows) redactSpanRow(row, redactor);
        });
        return rowsInPieces(await mapInTurns(rows, REDACTED_SPANS_PER_TURN, (row) => prepareSpanRow(redactSpanRow(row, redactor))));
      }
      return joinRowsInPieces(await mapInTurns(spans, redactor ? REDACTED_SPANS_PER_TURN : SPANS_PER_TURN, toRow));
    });
  }

  /** ingest for spans made into rows already (OTLP requests, by the decode worker), `count` in all. */
  async ingestPrepared(organizationId: string, projectId: string, pieces: PreparedRows[], count: number, path: IngestPath = 'otlp'): Promise<void> {
    if (!count) return;
    await this.ingestRows(organizationId, projectId, count, path, (redactor) => (redactor ? redactPieces(pieces, redactor) : Promise.resolve(pieces)));
  }

  /**
   * Acknowledged once every piece has committed. A piece that fails fails the request, whose
   * retry writes the pieces that did commit again: upserts by span id, so nothing doubles.
   * `prepare` makes the rows with the project's redaction applied (privacy at ingest, the one
   * place every span passes before its transaction; null when privacy is off).
   */
  private async ingestRows(organizationId: string, projectId: string, count: number, path: IngestPath, prepare: (redactor: ValueRedactor | null) => Promise<RowPiece[]>): Promise<void> {
    const release = this.control.admission.admit(projectId, count);
    try {
      const key = `${organizationId}/${projectId}`;
      const pieces = await prepare(await this.redactor(projectId, path));
      const written = await Promise.allSettled(pieces.map((rows) => this.ingestCommits.submit(key, { organizationId, projectId, rows, count: rowCount(rows) })));
      const failed = written.find((w) => w.status === 'rejected');
      if (failed) throw failed.reason;
    } catch (err) {
      this.metrics.spansRejected('failed', count);
      throw err;
    } finally {
      release();
    }
    this.metrics.spansIngested(count);
  }

  /** The project's redaction as it is now, or null when privacy is off. */
  private async redactor(projectId: string, path: IngestPath): Promise<ValueRedactor | null> {
    for (const e of this.ctx.extensions) {
      if (!e.redactor) continue;
      const r = await e.redactor(projectId, path);
      return r.active ? r : null;
    }
    return null;
  }

  /** An OTLP trace request's body (as received: compressed or not) decoded and made into rows, on a worker thread. */
  decodeOtlpTraces(body: Buffer, contentType: string, contentEncoding: string, maxInflatedBytes: number): Promise<DecodedTraces> {
    return this.otlpDecoder.traces({ body, contentType, contentEncoding, maxInflatedBytes, latestTimeMs: this.latestSpanTime(), maxValueBytes: this.control.maxValueBytes });
  }

  /** An OTLP log request's body decoded (GenAI events grouped by span), on a worker thread. */
  decodeOtlpLogs(body: Buffer, contentType: string, contentEncoding: string, maxInflatedBytes: number): Promise<LogsDecodeResult> {
    return this.otlpDecoder.logs({ body, contentType, contentEncoding, maxInflatedBytes, maxValueBytes: this.control.maxValueBytes });
  }

  /** Stops the decode workers (the server closes). */
  async close(): Promise<void> {
    await this.otlpDecoder.close();
  }

  /** Spans refused before reaching ingest (invalid in an OTLP request, or a collector body answered 400). */
  countRejected(n: number): void {
    this.metrics.spansRejected('invalid', n);
  }

  /** Ingest work of this process waiting for its transaction (group commit). */
  ingestQueue(): { requests: number; spans: number } {
    const { submissions, weight } = this.ingestCommits.waiting();
    return { requests: submissions, spans: weight };
  }

  /** One transaction for batches of the same project; later batches replace earlier spans of the same id. */
  private async writeSpans(batches: IngestBatch[]): Promise<void> {
    const { organizationId, projectId } = batches[0];
    const latest = new Map<string, PreparedSpanRow>();
    for (const b of batches) for (const r of splitRows(b.rows)) latest.set(`${r.facts.trace_id}/${r.facts.span_id}`, r);
    const now = this.ctx.clock.now();
    const rows = [...latest.values()];
    // The days a new trace of these rows may take, made before the transaction (never in it).
    const firstStart = new Map<string, number>();
    for (const { facts: f } of rows) firstStart.set(f.trace_id, Math.min(firstStart.get(f.trace_id) ?? Infinity, f.started_at));
    await this.ctx.days.ensure([...firstStart.values()].map(dayOf));
    await this.ctx.db.orm.transaction((tx) => this.writeRows(tx, organizationId, projectId, rows, now, true));
  }

  /**
   * Writes span rows and refreshes their traces' summaries, in the caller's transaction.
   * `mergePending`: spans that log events were waiting for (span_log_events) take them in.
   */
  private async writeRows(tx: Executor, organizationId: string, projectId: string, incoming: PreparedSpanRow[], now: Date, mergePending: boolean) {
    const traceIds = [...new Set(incoming.map((r) => r.facts.trace_id))];
    await store.lockTraces(tx, this.ctx.db, projectId, traceIds);
    // Facts of the spans already stored (read before the upsert, so a new trace reads
    // nothing); the batch's own spans come from memory and replace stored ones by id.
    // The same statement holds the project, once, as a foreign key would for every row.
    const { projectHeld, stored, pending } = await store.spanFacts(tx, projectId, traceIds, this.ctx.projects.holdProject(projectId), mergePending);
    if (!projectHeld) throw notFound('project_not_found', `project ${projectId} no longer exists`);
    const rows = pending.length > 0 ? await this.takePendingLogEvents(tx, projectId, incoming, pending) : incoming;
    const byTrace = new Map<string, Map<string, SpanFacts>>();
    const factsOf = (traceId: string) => byTrace.get(traceId) ?? byTrace.set(traceId, new Map()).get(traceId)!;
    for (const f of stored) factsOf(f.trace_id).set(f.span_id, f);
    let replacing = false;
    for (const { facts: r } of rows) {
      const previous = factsOf(r.trace_id).get(r.span_id);
      if (previous) replacing = true;
      factsOf(r.trace_id).set(r.span_id, { ...r, inserted_at: previous?.inserted_at ?? now.getTime(), updated_at: now.getTime() });
    }
    // In one go, not in turns: on PGlite the open transaction holds the only connection (and every read) meanwhile.
    const summaries = traceIds.map((id) => summarizeTrace(id, [...byTrace.get(id)!.values()]));
    // A stored trace keeps its day; a new one takes the day it starts on.
    const days = new Map(stored.map((f) => [f.trace_id, f.day]));
    const created = new Set(traceIds.filter((id) => !days.has(id)));
    for (const s of summaries) if (created.has(s.trace_id)) days.set(s.trace_id, dayOf(s.started_at));
    // Both statements sent at once (the connection runs them in order): the database does not
    // wait for a round trip to this thread between them.
    await Promise.all([
      store.upsertSpans(tx, projectId, rows, days, now.getTime(), replacing),
      store.upsertSummaries(tx, { organizationId, projectId }, summaries, days, created, now),
    ]);
    for (const e of this.ctx.extensions) await e.beforeCommit?.(tx, { organizationId, projectId, summaries, now });
  }

  /** Rows of spans that log events were waiting for, with those events merged in; the events leave the waiting table. */
  private async takePendingLogEvents(tx: Executor, projectId: string, rows: PreparedSpanRow[], pending: store.PendingLogEvents[]) {
    const waiting = new Map<string, store.PendingLogEvents[]>();
    for (const p of pending) {
      const key = `${p.trace_id}/${p.span_id}`;
      waiting.set(key, [...(waiting.get(key) ?? []), p]);
    }
    const taken: number[] = [];
    const merged = rows.map((r) => {
      const found = waiting.get(`${r.facts.trace_id}/${r.facts.span_id}`);
      if (!found) return r;
      for (const p of found) taken.push(p.id);
      return prepareSpanRow(mergeLogEvents(unprepareSpanRow(r), found.flatMap((p) => p.events)));
    });
    if (taken.length > 0) await store.deletePendingLogEvents(tx, projectId, taken);
    return merged;
  }

  /**
   * GenAI events sent as OTLP log records: merged into their spans' input and output. A span
   * not stored yet gets them when it arrives (they wait in span_log_events, in this
   * transaction, so nothing acknowledged is lost); the trace summary is refreshed at once
   * for spans already stored.
   */
  async ingestLogEvents(organizationId: string, projectId: string, received: SpanLogEvents[]): Promise<void> {
    if (!received.length) return;
    const release = this.control.admission.admit(projectId, received.length);
    try {
      // Redacted before they wait or merge: what they add to a span's input and output is redacted text.
      const redactor = await this.redactor(projectId, 'otlp_logs');
      await redactor?.prepare?.(() => {
        for (const g of received) redactLogEvents(g, redactor);
      });
      const groups = redactor ? await mapInTurns(received, REDACTED_SPANS_PER_TURN, (g) => redactLogEvents(g, redactor)) : received;
      await this.control.beforeWrite?.();
      await this.writeLogEvents(organizationId, projectId, groups);
    } finally {
      release();
    }
  }

  private async writeLogEvents(organizationId: string, projectId: string, groups: SpanLogEvents[]): Promise<void> {
    const now = this.ctx.clock.now();
    const traceIds = [...new Set(groups.map((g) => g.trace_id))];
    await this.ctx.db.orm.transaction(async (tx) => {
      // The same per-trace lock as span ingest: either the span is stored when this reads,
      // or these events are waiting when the span's transaction reads.
      await store.lockTraces(tx, this.ctx.db, projectId, traceIds);
      const found = await store.storedSpanRows(tx, projectId, traceIds, [...new Set(groups.map((g) => g.span_id))]);
      const stored = new Map(found.map((r) => [`${r.trace_id}/${r.span_id}`, r]));
      const merged: SpanRow[] = [];
      const waiting: SpanLogEvents[] = [];
      // The decoder groups a request's events by span: each span appears once here.
      for (const g of groups) {
        const row = stored.get(`${g.trace_id}/${g.span_id}`);
        if (row) merged.push(mergeLogEvents(row, g.events));
        else waiting.push(g);
      }
      if (waiting.length > 0) await store.insertPendingLogEvents(tx, projectId, waiting, now.getTime());
      if (merged.length > 0) await this.writeRows(tx, organizationId, projectId, merged.map(prepareSpanRow), now, false);
      else if (!(await store.projectExists(tx, this.ctx.projects.holdProject(projectId)))) throw notFound('project_not_found', `project ${projectId} no longer exists`);
    });
  }
}

/** Rows made on the decode worker, each with what the project's settings remove from it removed. */
async function redactPieces(pieces: PreparedRows[], redactor: ValueRedactor): Promise<RowPiece[]> {
  const out: RowPiece[] = [];
  for (const piece of pieces) out.push(await redactPiece(piece, redactor, REDACTED_SPANS_PER_TURN));
  return out;
}

/** A span's log events with their texts redacted; what was found is counted in /metrics only (the span's record keeps its own). */
function redactLogEvents(group: SpanLogEvents, r: ValueRedactor): SpanLogEvents {
  const events = r.value(group.events, 'events');
  r.take();
  return { ...group, events };
}

/** A stored span row as the normalized span it was made from (its payload holds the rest). */
function spanFromRow(row: SpanRow): NormalizedSpan {
  const d = row.data as Pick<NormalizedSpan, 'params' | 'input' | 'output' | 'attributes' | 'resource' | 'events' | 'links' | 'status' | 'kind' | 'scope'>;
  return {
    trace_id: row.trace_id,
    span_id: row.span_id,
    parent_id: row.parent_id,
    name: row.name,
    type: row.type as SpanType,
    model: row.model,
    vendor: row.vendor,
    started_at: row.started_at,
    finished_at: row.finished_at,
    first_token_at: row.first_token_at,
    params: d.params ?? {},
    metrics: {
      prompt_tokens: row.prompt_tokens,
      completion_tokens: row.completion_tokens,
      cached_input_tokens: row.cached_input_tokens,
      reasoning_tokens: row.reasoning_tokens,
      tokens_estimated: row.tokens_estimated,
      cost: row.cost,
    },
    input: d.input ?? null,
    output: d.output ?? null,
    error: row.error,
    trace_metadata: row.trace_meta ?? {},
    attributes: d.attributes ?? {},
    resource: d.resource ?? {},
    scope: d.scope ?? { name: null, version: null },
    events: d.events ?? [],
    links: d.links ?? [],
    status: d.status ?? { code: row.has_error ? 'error' : 'unset', message: null },
    kind: d.kind ?? 'internal',
  };
}

/**
 * A span row with the GenAI events of its log records merged in (input, output, and from the
 * details event a missing model and usage). Counts the span lacked are estimated as at
 * ingest; the cost is computed again when counts or model changed.
 */
function mergeLogEvents(row: SpanRow, events: SpanEvent[]): SpanRow {
  const span = spanFromRow(row);
  const m = span.metrics;
  const merged = mergeGenAiLogEvents(
    { model: span.model, input: span.input, output: span.output, prompt_tokens: m.prompt_tokens, completion_tokens: m.completion_tokens, events: span.events },
    events,
  );
  const changed =
    merged.model !== span.model ||
    merged.input !== span.input ||
    merged.output !== span.output ||
    merged.prompt_tokens !== m.prompt_tokens ||
    merged.completion_tokens !== m.completion_tokens;
  const mergedRow = toSpanRow({
    ...span,
    model: merged.model,
    input: merged.input,
    output: merged.output,
    events: merged.events,
    metrics: { ...m, prompt_tokens: merged.prompt_tokens, completion_tokens: merged.completion_tokens, cost: changed ? null : m.cost },
  });
  // Privacy's record of the span (redact-rows.ts) stays with it.
  if (row.data.redactions) mergedRow.data.redactions = row.data.redactions;
  return mergedRow;
}
