import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { json } from 'node:stream/consumers';
import { createHash } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { textArray, type Database, type Executor } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError, badRequest, notFound } from '../../platform/errors.ts';
import { randomAlphanumeric } from '../../platform/ids.ts';
import { emitEvent } from '../../platform/events/index.ts';
import { GroupCommit } from '../../platform/group-commit.ts';
import { Metrics } from '../../platform/metrics.ts';
import { Admission, RateLimiter } from '../../platform/admission.ts';
import { pagedStream } from '../../platform/paged-stream.ts';
import { mapInTurns } from '../../platform/turns.ts';
import { canonicalModelName } from './costs/index.ts';
import { inflatedSizeBound, mergeGenAiLogEvents, OtlpDecoder, truncateSpan, type DecodedTraces, type OtlpDecoderOptions, type LogsDecodeResult, type NormalizedSpan, type SpanEvent, type SpanLogEvents, type SpanType } from './ingest/index.ts';
import * as store from './store.ts';
import { INGEST_PIECE_SPANS, joinRowsInPieces, prepareSpanRow, splitRows, toSpanRow, unprepareSpanRow, type PreparedRows, type PreparedSpanRow } from './span-rows.ts';
import { summarizeTrace, type SpanFacts, type TraceSummary } from './summary.ts';
import type { AnnotationCounts, EvaluationChip, NewTracesRequest, SearchRequest } from './schemas.ts';
import { DEFAULT_SHARE_OPTIONS, redactSpanJson, redactSpanPage, redactTraceHead, type ShareOptions } from './share-redaction.ts';

/** PostgreSQL: how long a trace download may keep its pooled connection waiting for the client. */
const STREAM_HOLD_MS = 10_000;
/** How long GenAI log events wait for a span that has not arrived (docs/api.md: Traces: sending them, OTLP logs). */
export const PENDING_LOG_EVENTS_TTL_MS = 3 * 86_400_000;
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

/** What other modules add to traces: evaluations on the detail, search filters, work done with each ingest. */
export interface TraceExtension {
  evaluations?(projectId: string, traceId: string): Promise<Record<string, unknown>[]>;
  /** SQL conditions on `traces` rows for filters owned by other modules (annotations, evaluations). */
  filterConditions?(filters: NonNullable<SearchRequest['filters']>, projectId: string): SQL[];
  /** Runs inside the ingest transaction (e.g. enqueue monitor jobs): durable exactly when the spans are. */
  beforeCommit?(tx: Executor, batch: { organizationId: string; projectId: string; summaries: TraceSummary[]; now: Date }): Promise<void>;
  /** What the traces list shows of other modules' data, for a page of traces (one query each, not one per trace). */
  listFacts?(projectId: string, traceIds: string[]): Promise<ListFacts>;
  /** Runs in the transaction that deletes traces (retention): remove what belongs to them. */
  onTracesDeleted?(tx: Executor, projectId: string, traceIds: string[]): Promise<void>;
}

/** Per trace id: its evaluations in brief, its annotations counted. */
export interface ListFacts {
  evaluations?: Map<string, EvaluationChip[]>;
  annotations?: Map<string, AnnotationCounts>;
}

/** What traces need from the organizations module, which owns projects. */
export interface ProjectRegistry {
  /** Which projects keep traces for how many days. */
  retentionPolicies(): Promise<{ projectId: string; days: number }[]>;
  /** A query answering the project's id, share-locked for the transaction (it cannot be deleted under an ingest). */
  holdProjectSql(projectId: string): SQL;
}

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
  rows: PreparedRows;
  count: number;
}

export class TraceService {
  private readonly extensions: TraceExtension[] = [];
  private readonly ingestCommits: GroupCommit<IngestBatch>;
  /** OTLP request bodies to rows, on worker threads (the routes hand it the bodies). */
  readonly otlpDecoder: OtlpDecoder;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly projects: ProjectRegistry,
    private readonly control: IngestControl,
    decoding: Omit<OtlpDecoderOptions, 'threads'>,
    private readonly metrics: Metrics = new Metrics(),
  ) {
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
    return this.clock.now().getTime() + MAX_CLOCK_SKEW_MS;
  }

  extend(extension: TraceExtension) {
    this.extensions.push(extension);
  }

  /**
   * Writes a batch of spans and refreshes the summaries of the traces they touch: when this
   * returns, the spans are committed and searchable. Concurrent batches of one project are
   * written together (group commit): one transaction per round instead of one per request.
   */
  async ingest(organizationId: string, projectId: string, spans: NormalizedSpan[]): Promise<void> {
    if (!spans.length) return;
    // Only the prepared rows wait for the commit (not `spans`, whose objects can then die young).
    const toRow = (s: NormalizedSpan) => {
      truncateSpan(s, this.control.maxValueBytes);
      return prepareSpanRow(toSpanRow(s));
    };
    await this.ingestRows(organizationId, projectId, spans.length, async () => joinRowsInPieces(await mapInTurns(spans, SPANS_PER_TURN, toRow)));
  }

  /** ingest for spans made into rows already (OTLP requests, by the decode worker), `count` in all. */
  async ingestPrepared(organizationId: string, projectId: string, pieces: PreparedRows[], count: number): Promise<void> {
    if (!count) return;
    await this.ingestRows(organizationId, projectId, count, async () => pieces);
  }

  /**
   * Acknowledged once every piece has committed. A piece that fails fails the request, whose
   * retry writes the pieces that did commit again: upserts by span id, so nothing doubles.
   */
  private async ingestRows(organizationId: string, projectId: string, count: number, prepare: () => Promise<PreparedRows[]>): Promise<void> {
    const release = this.control.admission.admit(projectId, count);
    try {
      const key = `${organizationId}/${projectId}`;
      const pieces = await prepare();
      const written = await Promise.allSettled(pieces.map((rows) => this.ingestCommits.submit(key, { organizationId, projectId, rows, count: rows.ends.length })));
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
    const now = this.clock.now();
    await this.db.orm.transaction((tx) => this.writeRows(tx, organizationId, projectId, [...latest.values()], now, true));
  }

  /**
   * Writes span rows and refreshes their traces' summaries, in the caller's transaction.
   * `mergePending`: spans that log events were waiting for (span_log_events) take them in.
   */
  private async writeRows(tx: Executor, organizationId: string, projectId: string, incoming: PreparedSpanRow[], now: Date, mergePending: boolean) {
    const traceIds = [...new Set(incoming.map((r) => r.facts.trace_id))];
    await store.lockTraces(tx, this.db, projectId, traceIds);
    // Facts of the spans already stored (read before the upsert, so a new trace reads
    // nothing); the batch's own spans come from memory and replace stored ones by id.
    // The same statement holds the project, once, as a foreign key would for every row.
    const { projectHeld, stored, pending } = await store.spanFacts(tx, projectId, traceIds, this.projects.holdProjectSql(projectId), mergePending);
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
    await store.upsertSpans(tx, projectId, rows, now.getTime(), replacing);
    // In one go, not in turns: on PGlite the open transaction holds the only connection (and every read) meanwhile.
    const summaries = traceIds.map((id) => summarizeTrace(id, [...byTrace.get(id)!.values()]));
    await store.upsertSummaries(tx, { organizationId, projectId }, summaries, now);
    for (const e of this.extensions) await e.beforeCommit?.(tx, { organizationId, projectId, summaries, now });
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
  async ingestLogEvents(organizationId: string, projectId: string, groups: SpanLogEvents[]): Promise<void> {
    if (!groups.length) return;
    const release = this.control.admission.admit(projectId, groups.length);
    try {
      await this.control.beforeWrite?.();
      await this.writeLogEvents(organizationId, projectId, groups);
    } finally {
      release();
    }
  }

  private async writeLogEvents(organizationId: string, projectId: string, groups: SpanLogEvents[]): Promise<void> {
    const now = this.clock.now();
    const traceIds = [...new Set(groups.map((g) => g.trace_id))];
    await this.db.orm.transaction(async (tx) => {
      // The same per-trace lock as span ingest: either the span is stored when this reads,
      // or these events are waiting when the span's transaction reads.
      await store.lockTraces(tx, this.db, projectId, traceIds);
      const found = await store.storedSpanRows(tx, projectId, traceIds, [...new Set(groups.map((g) => g.span_id))]);
      const stored = new Map(found.map((r) => [`${r.trace_id}/${r.span_id}`, r]));
      const merged: store.SpanRow[] = [];
      const waiting: SpanLogEvents[] = [];
      // The decoder groups a request's events by span: each span appears once here.
      for (const g of groups) {
        const row = stored.get(`${g.trace_id}/${g.span_id}`);
        if (row) merged.push(mergeLogEvents(row, g.events));
        else waiting.push(g);
      }
      if (waiting.length > 0) await store.insertPendingLogEvents(tx, projectId, waiting, now.getTime());
      if (merged.length > 0) await this.writeRows(tx, organizationId, projectId, merged.map(prepareSpanRow), now, false);
      else if (!(await store.projectExists(tx, this.projects.holdProjectSql(projectId)))) throw notFound('project_not_found', `project ${projectId} no longer exists`);
    });
  }

  /**
   * The trace detail as a stream of JSON text, read from the database as the client takes
   * it: a 10,000-span trace with payloads is ~10 MiB, which was held whole three times over
   * (the database's result, the string, the reply). 404 before the first byte when there is
   * no such trace. `outline`: the spans without their payloads (input, output, params,
   * attributes, events).
   */
  async detailStream(projectId: string, traceId: string, options: { outline?: boolean; redact?: ShareOptions } = {}): Promise<Readable> {
    const [opened, evaluated] = await Promise.allSettled([
      store.openTraceSpans(this.db, projectId, traceId, { payloads: !options.outline }),
      this.evaluations(projectId, traceId),
    ]);
    if (opened.status === 'rejected') throw opened.reason;
    const spans = opened.value;
    if (evaluated.status === 'rejected') {
      await spans?.close();
      throw evaluated.reason;
    }
    if (!spans) throw notFound('trace_not_found', `no trace ${traceId} in this project`);
    const evaluations = evaluated.value;
    const { redact } = options;
    const view = { ...traceView(spans.trace), evaluations };
    const head = JSON.stringify(redact ? redactTraceHead(view, redact) : view);
    // A share's visitors: each page of spans without what the share hides.
    const source = redact ? { next: async () => ((page) => (page === null ? null : redactSpanPage(page, redact)))(await spans.next()), close: () => spans.close() } : spans;
    // PostgreSQL: the stream keeps a pooled connection (its cursor lives there), so a slow
    // client gets the rest buffered after a while rather than holding it for ever.
    return pagedStream(`${head.slice(0, -1)},"spans":[`, source, ']}', { hurryAfterMs: this.db.kind === 'postgres' ? STREAM_HOLD_MS : undefined });
  }

  private async evaluations(projectId: string, traceId: string): Promise<Record<string, unknown>[]> {
    const lists = await Promise.all(this.extensions.map((e) => e.evaluations?.(projectId, traceId) ?? []));
    return lists.flat();
  }

  /** One span of a trace, whole, as JSON text. */
  async spanJson(projectId: string, traceId: string, spanId: string): Promise<string> {
    const span = await store.spanJson(this.db.orm, projectId, traceId, spanId);
    if (span === null) throw notFound('span_not_found', `no span ${spanId} in trace ${traceId}`);
    return span;
  }

  /** The trace detail as objects (monitors). */
  async detail(projectId: string, traceId: string): Promise<TraceDetail> {
    return (await json(await this.detailStream(projectId, traceId))) as TraceDetail;
  }

  async search(projectId: string, req: SearchRequest) {
    const sortBy = SORT_COLUMNS[req.sortBy ?? 'started_at'];
    const direction = req.sortDirection ?? 'desc';
    const fingerprint = createHash('sha256').update(JSON.stringify([req.query, req.startDate, req.endDate, req.filters, sortBy, direction])).digest('base64url').slice(0, 16);
    let cursor: ScrollCursor | null = null;
    if (req.scrollId) {
      cursor = decodeScroll(req.scrollId);
      if (cursor.f !== fingerprint) throw badRequest('invalid_scroll_id', 'scrollId belongs to a different query, filters or sort', 'scrollId');
    }
    // The first page fixes a snapshot: traces first seen after it never shift later pages.
    const snapshot = cursor?.s ?? this.clock.now().getTime();
    const where: SQL[] = [sql`inserted_at <= ${snapshot}`, ...this.searchConditions(projectId, req)];
    const pageSize = req.pageSize ?? 25;
    const { rows } = await store.searchTraces(this.db.orm, {
      projectId,
      where,
      orderColumn: sortBy,
      direction,
      after: cursor ? { value: cursor.v, traceId: cursor.t } : null,
      limit: pageSize,
    });
    // Counted once, on the first page; the snapshot keeps it true for the pages after.
    const counted = cursor ? cursor.n : await store.countTraces(this.db.orm, projectId, where);
    const last = rows[rows.length - 1];
    const scrollId =
      rows.length === pageSize && last
        ? encodeScroll({ v: sortValue(last, sortBy), t: last.trace_id, s: snapshot, f: fingerprint, n: counted })
        : null;
    const capped = counted > store.MAX_COUNTED_HITS;
    return {
      traces: await this.listViews(projectId, rows),
      pagination: { totalHits: capped ? store.MAX_COUNTED_HITS : counted, totalHitsRelation: capped ? ('gte' as const) : ('eq' as const), scrollId },
    };
  }

  /**
   * Traces first stored at or after `since` that match the search, newest first: the list
   * polls this to show new traces live. It reads the database only, so it works the same
   * with any number of processes on one PostgreSQL.
   */
  async newTraces(projectId: string, req: NewTracesRequest) {
    const where = [sql`inserted_at >= ${req.since}`, ...this.searchConditions(projectId, req)];
    const now = this.clock.now().getTime();
    const [rows, count] = await Promise.all([
      store.recentlyInserted(this.db.orm, projectId, where, req.pageSize ?? 50),
      store.countTraces(this.db.orm, projectId, where),
    ]);
    return { traces: await this.listViews(projectId, rows), count: Math.min(count, store.MAX_COUNTED_HITS), now };
  }

  /** Summaries as the list shows them: with other modules' facts (evaluations, annotations) merged in. */
  private async listViews(projectId: string, rows: store.TraceRow[]) {
    const views = rows.map(traceView);
    if (!views.length) return views;
    const ids = views.map((v) => v.trace_id);
    const facts: ListFacts[] = await Promise.all(this.extensions.map((e) => e.listFacts?.(projectId, ids) ?? {}));
    return views.map((v) => {
      const extra: { evaluations: EvaluationChip[]; annotations: AnnotationCounts } = { evaluations: [], annotations: { thumbs_up: 0, thumbs_down: 0 } };
      for (const f of facts) {
        extra.evaluations.push(...(f.evaluations?.get(v.trace_id) ?? []));
        if (f.annotations?.has(v.trace_id)) extra.annotations = f.annotations.get(v.trace_id)!;
      }
      return { ...v, ...extra };
    });
  }

  /**
   * The trace search's query, dates and filters as SQL conditions on rows of `traces`: the
   * one filter compiler, also used by analytics so a dashboard and the list agree.
   */
  searchConditions(projectId: string, req: Pick<SearchRequest, 'query' | 'startDate' | 'endDate' | 'filters'>): SQL[] {
    const c: SQL[] = [];
    // Words of input and output; web-search syntax: "a phrase", or, -excluded.
    if (req.query?.trim()) c.push(sql`search_tsv @@ websearch_to_tsquery('simple', ${req.query})`);
    if (req.startDate !== undefined) c.push(sql`started_at >= ${toMillis(req.startDate)}`);
    if (req.endDate !== undefined) c.push(sql`started_at <= ${toMillis(req.endDate)}`);
    const f = req.filters;
    if (!f) return c;
    const list = (v: string | string[]) => textArray(Array.isArray(v) ? v : [v]);
    const anyOf = (col: string, v: string | string[] | undefined) => {
      if (v !== undefined) c.push(sql`${sql.raw(col)} = ANY(${list(v)})`);
    };
    const overlaps = (col: string, v: string | string[] | undefined) => {
      if (v !== undefined) c.push(sql`${sql.raw(col)} && ${list(v)}`);
    };
    anyOf('user_id', f.user_id);
    anyOf('thread_id', f.thread_id);
    anyOf('customer_id', f.customer_id);
    overlaps('labels', f.labels);
    // What was sent (`openai/gpt-4o-mini`, `GPT-4o-mini`) finds its normalized name.
    if (f.model !== undefined) {
      const names = (Array.isArray(f.model) ? f.model : [f.model]).map((m) => canonicalModelName(m) ?? m);
      c.push(sql`model_names && ${textArray(names)}`);
    }
    overlaps('span_types', f.span_type);
    if (f.has_error !== undefined) c.push(sql`has_error = ${f.has_error}`);
    for (const [key, value] of Object.entries(f.metadata ?? {})) {
      c.push(sql`metadata @> ${JSON.stringify({ [key]: value })}::jsonb`);
    }
    for (const e of this.extensions) c.push(...(e.filterConditions?.(f, projectId) ?? []));
    return c;
  }

  /**
   * Publishes a trace. The trace need not have arrived: exporters batch spans for seconds and
   * SDKs share the trace they are still running, so the share is kept and works once the
   * spans come (like annotations and evaluations of a trace that is not there yet).
   */
  async share(organizationId: string, projectId: string, traceId: string, options: Partial<ShareOptions> = {}): Promise<{ path: string }> {
    const now = this.clock.now();
    return this.db.orm.transaction(async (tx) => {
      const { token, created } = await store.insertShare(tx, projectId, traceId, randomAlphanumeric(32), now, { ...DEFAULT_SHARE_OPTIONS, ...options });
      const path = `/share/${token}`;
      if (created) await emitEvent(tx, { organizationId, projectId, type: 'trace.shared', data: { trace_id: traceId, path } }, now);
      return { path };
    });
  }

  async unshare(organizationId: string, projectId: string, traceId: string): Promise<{ message: string }> {
    const now = this.clock.now();
    return this.db.orm.transaction(async (tx) => {
      const deleted = await store.deleteShare(tx, projectId, traceId);
      if (deleted) await emitEvent(tx, { organizationId, projectId, type: 'trace.unshared', data: { trace_id: traceId } }, now);
      return { message: deleted ? 'trace unshared: its public path no longer works' : 'trace was not shared' };
    });
  }

  /** Whether a trace is shared, and its public path (a trace may be shared before it arrives). */
  async shareState(projectId: string, traceId: string): Promise<{ shared: boolean; path: string | null; options: ShareOptions | null }> {
    const [token, options] = await Promise.all([store.findShareByTrace(this.db.orm, projectId, traceId), store.findShareOptions(this.db.orm, projectId, traceId)]);
    return { shared: token !== null, path: token ? `/share/${token}` : null, options: token ? options : null };
  }

  /** Whether a public share token shows a trace now: shared, and its spans have arrived (else its page answers 404). */
  async shareShowsTrace(token: string): Promise<boolean> {
    const share = /^[A-Za-z0-9]{32}$/.test(token) ? await store.findShare(this.db.orm, token) : null;
    return share !== null && (await store.findTrace(this.db.orm, share.projectId, share.traceId)) !== null;
  }

  /** The trace behind a public share token, for anyone (streamed as detailStream); 404 once unshared, or while its spans have not arrived. */
  async sharedStream(token: string, options: { outline?: boolean } = {}): Promise<Readable> {
    const share = await this.liveShare(token);
    try {
      return await this.detailStream(share.projectId, share.traceId, { ...options, redact: share.options });
    } catch (err) {
      if (err instanceof AppError && err.status === 404) {
        throw notFound('trace_not_available_yet', 'this trace is shared but not available yet: its spans have not arrived (try again in a few seconds)');
      }
      throw err;
    }
  }

  /** One span of a shared trace, for anyone (JSON text). */
  async sharedSpanJson(token: string, spanId: string): Promise<string> {
    const share = await this.liveShare(token);
    return redactSpanJson(await this.spanJson(share.projectId, share.traceId, spanId), share.options);
  }

  private async liveShare(token: string): Promise<{ projectId: string; traceId: string; options: ShareOptions }> {
    const share = /^[A-Za-z0-9]{32}$/.test(token) ? await store.findShare(this.db.orm, token) : null;
    if (!share) throw notFound('share_not_found', 'this shared trace does not exist or is no longer shared');
    return share;
  }

  /**
   * Planner statistics for the trace tables. PostgreSQL's autovacuum keeps them; PGlite has
   * no autovacuum, so the app runs this periodically (without them search plans go blind).
   */
  async refreshStatistics(): Promise<void> {
    await this.db.orm.execute(sql`ANALYZE traces, spans`);
  }

  /** Deletes every trace and span of a project, in the transaction that deletes the project. */
  async deleteProjectTraces(tx: Executor, projectId: string): Promise<void> {
    await store.deleteProjectTraces(tx, projectId);
  }

  /** Deletes traces older than each project's retention period, and log events whose span never came. */
  async sweepRetention(): Promise<number> {
    let deleted = 0;
    const now = this.clock.now().getTime();
    await store.prunePendingLogEvents(this.db.orm, now - PENDING_LOG_EVENTS_TTL_MS);
    for (const { projectId, days } of await this.projects.retentionPolicies()) {
      // Rounds of a few thousand traces, each its own short transaction: a big backlog never
      // holds one huge transaction (and its locks and WAL) open beside ingest. PGlite runs
      // one statement at a time in this very thread, so there the rounds are smaller and
      // each is followed by a pause as long as itself: ingest waits one round at most.
      const round = this.db.kind === 'pglite' ? 500 : 2_000;
      for (;;) {
        const started = performance.now();
        const gone = await this.db.orm.transaction(async (tx) => {
          const ids = await store.deleteTracesBefore(tx, projectId, now - days * 86_400_000, round);
          if (ids.length) for (const e of this.extensions) await e.onTracesDeleted?.(tx, projectId, ids);
          return ids.length;
        });
        deleted += gone;
        if (gone < round) break;
        if (this.db.kind === 'pglite') await new Promise((r) => setTimeout(r, performance.now() - started));
      }
    }
    return deleted;
  }
}

const SORT_COLUMNS = {
  started_at: 'started_at',
  'timestamps.started_at': 'started_at',
  cost: 'total_cost',
  'metrics.total_cost': 'total_cost',
  latency: 'total_time_ms',
  'metrics.total_time_ms': 'total_time_ms',
} as const;

interface ScrollCursor {
  /** sort value and trace id of the last trace served */
  v: number | null;
  t: string;
  /** snapshot: traces first seen after it are left out */
  s: number;
  /** fingerprint of query, filters and sort */
  f: string;
  /** hits counted on the first page */
  n: number;
}

function encodeScroll(c: ScrollCursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeScroll(id: string): ScrollCursor {
  try {
    const c = JSON.parse(Buffer.from(id, 'base64url').toString('utf8')) as ScrollCursor;
    if (typeof c.t === 'string' && typeof c.s === 'number' && typeof c.f === 'string' && typeof c.n === 'number' && (c.v === null || typeof c.v === 'number')) return c;
  } catch {
    /* falls through */
  }
  throw badRequest('invalid_scroll_id', 'scrollId is not one this server issued', 'scrollId');
}

function sortValue(row: store.TraceRow, column: store.SearchQuery['orderColumn']): number | null {
  return column === 'started_at' ? row.started_at : column === 'total_cost' ? row.total_cost : row.total_time_ms;
}

function toMillis(v: number | string): number {
  if (typeof v === 'number') return v;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) throw new AppError(400, 'invalid_date', `not a date: ${v}`);
  return ms;
}

/** A stored span row as the normalized span it was made from (its payload holds the rest). */
function spanFromRow(row: store.SpanRow): NormalizedSpan {
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
function mergeLogEvents(row: store.SpanRow, events: SpanEvent[]): store.SpanRow {
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
  return toSpanRow({
    ...span,
    model: merged.model,
    input: merged.input,
    output: merged.output,
    events: merged.events,
    metrics: { ...m, prompt_tokens: merged.prompt_tokens, completion_tokens: merged.completion_tokens, cost: changed ? null : m.cost },
  });
}

export type TraceDetail = ReturnType<typeof traceView> & {
  spans: (Record<string, unknown> & { span_id: string; parent_id: string | null; type: string; input: unknown; output: unknown })[];
  evaluations: Record<string, unknown>[];
};

export function traceView(t: store.TraceRow) {
  return {
    trace_id: t.trace_id,
    project_id: t.project_id,
    metadata: {
      ...t.metadata,
      ...(t.user_id ? { user_id: t.user_id } : {}),
      ...(t.thread_id ? { thread_id: t.thread_id } : {}),
      ...(t.customer_id ? { customer_id: t.customer_id } : {}),
      labels: t.labels,
    },
    timestamps: { started_at: t.started_at, inserted_at: t.inserted_at, updated_at: t.updated_at },
    input: { value: t.input ?? '' },
    output: { value: t.output ?? '' },
    metrics: {
      first_token_ms: t.first_token_ms,
      total_time_ms: t.total_time_ms,
      prompt_tokens: t.prompt_tokens,
      completion_tokens: t.completion_tokens,
      tokens_estimated: t.tokens_estimated,
      total_cost: t.total_cost,
    },
    error: t.error,
    indexing_md5s: t.indexing_md5 ? [t.indexing_md5] : [],
    models: t.models,
    span_types: t.span_types,
    span_count: t.span_count,
  };
}
