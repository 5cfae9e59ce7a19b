import type { Readable } from 'node:stream';
import type { SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { Metrics } from '../../platform/metrics.ts';
import type { DecodedTraces, LogsDecodeResult, NormalizedSpan, OtlpDecoder, OtlpDecoderOptions, SpanLogEvents } from './ingest/index.ts';
import type { PreparedRows } from './span-rows.ts';
import type { NewTracesRequest, SearchRequest } from './schemas.ts';
import type { ProjectRegistry, TraceContext, TraceExtension } from './context.ts';
import { TraceIngest, type IngestControl, type IngestPath } from './ingest.ts';
import { TraceReads } from './reads.ts';
import { TraceSearch } from './search.ts';
import { TraceShares } from './shares.ts';
import { TraceRetention } from './retention.ts';
import { TraceViews, type CreateViewInput, type UpdateViewInput } from './views.ts';
import { traceInputs } from './store.ts';
import type { ShareOptions } from './share-redaction.ts';
import type { TraceDetail } from './presenters.ts';

export type { ListFacts, ProjectRegistry, TraceExtension } from './context.ts';
export type { IngestControl } from './ingest.ts';
export { PENDING_LOG_EVENTS_TTL_MS } from './retention.ts';

/**
 * The traces module's face for routes and app.ts: one object over its use cases, each in a
 * file of its own (ingest.ts, reads.ts, search.ts, shares.ts, retention.ts), sharing one
 * TraceContext. Every method here hands its call to the use case that owns it.
 */
export class TraceService {
  private readonly ctx: TraceContext;
  private readonly ingestion: TraceIngest;
  private readonly reads: TraceReads;
  private readonly searching: TraceSearch;
  private readonly shares: TraceShares;
  private readonly retention: TraceRetention;
  private readonly views: TraceViews;
  /** OTLP request bodies to rows, on worker threads (the routes hand it the bodies). */
  readonly otlpDecoder: OtlpDecoder;

  constructor(
    db: Database,
    clock: Clock,
    projects: ProjectRegistry,
    control: IngestControl,
    decoding: Omit<OtlpDecoderOptions, 'threads'>,
    metrics: Metrics = new Metrics(),
  ) {
    this.ctx = { db, clock, projects, extensions: [] };
    this.ingestion = new TraceIngest(this.ctx, control, decoding, metrics);
    this.otlpDecoder = this.ingestion.otlpDecoder;
    this.reads = new TraceReads(this.ctx);
    this.searching = new TraceSearch(this.ctx);
    this.shares = new TraceShares(this.ctx, this.reads);
    this.retention = new TraceRetention(this.ctx);
    this.views = new TraceViews(this.ctx);
  }

  /** What other modules add to traces (app.ts): evaluations on the detail, filter conditions, work done with each ingest. */
  extend(extension: TraceExtension) {
    this.ctx.extensions.push(extension);
  }

  // Ingest (ingest.ts)
  checkIngestRequest(keyId: string, projectId: string): void {
    this.ingestion.checkIngestRequest(keyId, projectId);
  }
  checkOtlpRequest(keyId: string, projectId: string): void {
    this.ingestion.checkOtlpRequest(keyId, projectId);
  }
  admitOtlpBody(body: Buffer, contentEncoding: string): { maxInflatedBytes: number; release: () => void } {
    return this.ingestion.admitOtlpBody(body, contentEncoding);
  }
  get ingestLoad() {
    return this.ingestion.ingestLoad;
  }
  latestSpanTime(): number {
    return this.ingestion.latestSpanTime();
  }
  ingest(organizationId: string, projectId: string, spans: NormalizedSpan[], path?: IngestPath): Promise<void> {
    return this.ingestion.ingest(organizationId, projectId, spans, path);
  }
  ingestPrepared(organizationId: string, projectId: string, pieces: PreparedRows[], count: number): Promise<void> {
    return this.ingestion.ingestPrepared(organizationId, projectId, pieces, count);
  }
  ingestLogEvents(organizationId: string, projectId: string, groups: SpanLogEvents[]): Promise<void> {
    return this.ingestion.ingestLogEvents(organizationId, projectId, groups);
  }
  decodeOtlpTraces(body: Buffer, contentType: string, contentEncoding: string, maxInflatedBytes: number): Promise<DecodedTraces> {
    return this.ingestion.decodeOtlpTraces(body, contentType, contentEncoding, maxInflatedBytes);
  }
  decodeOtlpLogs(body: Buffer, contentType: string, contentEncoding: string, maxInflatedBytes: number): Promise<LogsDecodeResult> {
    return this.ingestion.decodeOtlpLogs(body, contentType, contentEncoding, maxInflatedBytes);
  }
  countRejected(n: number): void {
    this.ingestion.countRejected(n);
  }
  ingestQueue(): { requests: number; spans: number } {
    return this.ingestion.ingestQueue();
  }
  /** Stops the decode workers (the server closes). */
  close(): Promise<void> {
    return this.ingestion.close();
  }

  // Reads (reads.ts)
  detailStream(projectId: string, traceId: string, options: { outline?: boolean } = {}): Promise<Readable> {
    return this.reads.detailStream(projectId, traceId, options);
  }
  spanJson(projectId: string, traceId: string, spanId: string): Promise<string> {
    return this.reads.spanJson(projectId, traceId, spanId);
  }
  detail(projectId: string, traceId: string): Promise<TraceDetail> {
    return this.reads.detail(projectId, traceId);
  }
  contents(projectId: string, traceIds: readonly string[], spanTypes: readonly string[] | null) {
    return this.reads.contents(projectId, traceIds, spanTypes);
  }
  searchSpans(projectId: string, traceId: string, q: string) {
    return this.reads.searchSpans(projectId, traceId, q);
  }

  // Saved views of the traces list (views.ts)
  listViews(projectId: string) {
    return this.views.list(projectId);
  }
  createView(projectId: string, userId: string | null, body: CreateViewInput) {
    return this.views.create(projectId, userId, body);
  }
  updateView(projectId: string, id: string, body: UpdateViewInput) {
    return this.views.update(projectId, id, body);
  }
  deleteView(projectId: string, id: string) {
    return this.views.remove(projectId, id);
  }

  // Search (search.ts)
  search(projectId: string, req: SearchRequest) {
    return this.searching.search(projectId, req);
  }
  newTraces(projectId: string, req: NewTracesRequest) {
    return this.searching.newTraces(projectId, req);
  }
  searchConditions(projectId: string, req: Pick<SearchRequest, 'query' | 'startDate' | 'endDate' | 'filters'>): SQL[] {
    return this.searching.searchConditions(projectId, req);
  }
  /** Traces' inputs, newest first or as first ingested, under conditions on `traces` rows (topics embed what they have not seen). */
  inputs(projectId: string, where: SQL[], limit: number, order?: 'newest' | 'ingested') {
    return traceInputs(this.ctx.db.orm, projectId, where, limit, order);
  }

  // Shares (shares.ts)
  share(organizationId: string, projectId: string, traceId: string, options: Partial<ShareOptions> = {}): Promise<{ path: string }> {
    return this.shares.share(organizationId, projectId, traceId, options);
  }
  unshare(organizationId: string, projectId: string, traceId: string): Promise<{ message: string }> {
    return this.shares.unshare(organizationId, projectId, traceId);
  }
  shareState(projectId: string, traceId: string): Promise<{ shared: boolean; path: string | null; options: ShareOptions | null }> {
    return this.shares.shareState(projectId, traceId);
  }
  shareShowsTrace(token: string): Promise<boolean> {
    return this.shares.shareShowsTrace(token);
  }
  sharedStream(token: string, options: { outline?: boolean } = {}): Promise<Readable> {
    return this.shares.sharedStream(token, options);
  }
  sharedSpanJson(token: string, spanId: string): Promise<string> {
    return this.shares.sharedSpanJson(token, spanId);
  }

  // Retention (retention.ts)
  refreshStatistics(): Promise<void> {
    return this.retention.refreshStatistics();
  }
  deleteProjectTraces(tx: Executor, projectId: string): Promise<void> {
    return this.retention.deleteProjectTraces(tx, projectId);
  }
  sweepRetention(): Promise<number> {
    return this.retention.sweepRetention();
  }
}
