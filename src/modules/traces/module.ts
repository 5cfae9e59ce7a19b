import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Database, Executor } from '../../db/index.ts';
import { DayPartitions } from '../../db/day-partitions.ts';
import { Admission, RateLimiter } from '../../platform/admission.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Metrics } from '../../platform/metrics.ts';
import type { SpyglassModule } from '../../platform/module.ts';
import type { ReadPriority } from '../../platform/read-priority.ts';
import type { ProjectRegistry, TraceContext, TraceExtension } from './context.ts';
import type { NormalizedSpan } from './ingest/index.ts';
import { TraceIngest, type IngestPath } from './ingest.ts';
import type { TraceDetail } from './presenters.ts';
import { contents, detail, TRACE_CONTENTS_PAGE, traceInputs, type TraceContents } from './reads.ts';
import { deleteProjectTraces, makeDays, refreshStatistics, sweepRetention } from './retention.ts';
import { traceRoutes } from './routes.ts';
import type { TraceSearch } from './schemas.ts';
import { matchingTraceIds } from './search.ts';
import { traceAggregates, type TraceAggregates } from './aggregates.ts';
import { shareShowsTrace } from './shares.ts';
import { rollUpDirtyHours } from './rollups.ts';
import { threadTurns } from './thread-store.ts';
import { traceDay as traceDayOf, type TraceInputsPick } from './store.ts';

/** What the traces module is given (app.ts): its database, the ingest limits, the projects it keeps traces of. */
export interface TracesPorts {
  db: Database;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** SPYGLASS_INGEST_*: queues, rate, value sizes, the decode deadline. */
  limits: Config['ingest'];
  /** PGlite: ingest transactions wait while read requests are in progress. */
  readPriority: ReadPriority;
  projects: ProjectRegistry;
  /** What other modules add to traces (each module's own): evaluations on the detail, filter conditions, work done with each ingest. */
  extensions: TraceExtension[];
}

/**
 * What the traces module offers the app and the other modules. The use cases are functions
 * over `ctx` (reads.ts, search.ts, shares.ts, views.ts, retention.ts); ingest holds state of
 * its own (admission, the decode workers, group commit).
 */
export interface Traces {
  ctx: TraceContext;
  ingestion: TraceIngest;
  /** Spans written and committed (prompts' playground, experiment runs). */
  ingest(organizationId: string, projectId: string, spans: NormalizedSpan[], path?: IngestPath): Promise<void>;
  /** The trace detail as objects (monitors, judge alignment). */
  detail(projectId: string, traceId: string): Promise<TraceDetail>;
  /** Up to `pageSize` traces' contents by id (datasets, threads). */
  contents(projectId: string, traceIds: readonly string[], spanTypes: readonly string[] | null): Promise<Map<string, TraceContents>>;
  /** Ids a `contents` call takes at most. */
  pageSize: number;
  /** Ids of the traces matching a search, newest first, at most `limit` (review queues, dataset imports, monitor backfills). */
  matching(projectId: string, search: TraceSearch, limit: number): Promise<string[]>;
  /** Sums, values and threads of the traces a search picks (analytics, threads): asked with the search itself. */
  aggregates: TraceAggregates;
  /** Traces' inputs: of these ids, or of those ingested since a time that another module's ids leave out (topics). */
  inputs(projectId: string, pick: TraceInputsPick, limit: number, order?: 'newest' | 'ingested'): ReturnType<typeof traceInputs>;
  /** The trace ids of a thread's turns, oldest first, at most `limit` (review queues' thread items). */
  threadTraceIds(projectId: string, threadId: string, limit: number): Promise<string[]>;
  /** Whether a public share token shows a trace now (the web app's share page). */
  shareShowsTrace(token: string): Promise<boolean>;
  /** The UTC day a stored trace is kept in (its partition), null when it is not stored (evaluation results go in their trace's day). */
  traceDay(db: Executor, projectId: string, traceId: string): Promise<number | null>;
  /** Every trace of a project, in the transaction that deletes the project. */
  deleteProjectTraces(tx: Executor, projectId: string): Promise<void>;
  /** Traces past their project's retention period deleted (the scheduler's sweep); the count. */
  sweepRetention(): Promise<number>;
  /** Planner statistics of the trace tables (PGlite has no autovacuum). */
  refreshStatistics(): Promise<void>;
  /** The hourly rollups of the hours changed since recomputed (the scheduler's task; analytics reads them); the hours done. */
  rollUp(budgetMs?: number): Promise<number>;
}

export function buildTraces(ports: TracesPorts): Traces {
  const { db, clock, limits, readPriority } = ports;
  // Spans, traces and what other modules keep by their trace's day share the days (made and dropped together).
  const days = new DayPartitions(db, ['traces', 'spans', ...ports.extensions.flatMap((e) => e.dayTables ?? [])], ports.logger);
  const ctx: TraceContext = { db, clock, days, projects: ports.projects, extensions: ports.extensions };
  const ingestion = new TraceIngest(
    ctx,
    {
      admission: new Admission({ total: limits.queueSpans, perKey: limits.projectQueueSpans }),
      otlpBytes: new Admission({
        total: limits.queueBytes,
        perKey: limits.queueBytes,
        full: () => `the server's budget of ${limits.queueBytes} bytes of decompressed OTLP bodies in flight is in use`,
      }),
      maxValueBytes: limits.maxAttributeBytes,
      rateLimiter: new RateLimiter(limits.ratePerSecond),
      // Only PGlite's one connection makes writes wait for reads; PostgreSQL has connections for both.
      beforeWrite: db.kind === 'pglite' ? () => readPriority.beforeWrite() : undefined,
      reading: () => readPriority.reading,
    },
    { jobDeadlineMs: limits.decodeTimeoutMs, logger: ports.logger },
    ports.metrics,
  );
  ports.projects.onProjectDeleted((tx, projectId) => deleteProjectTraces(tx, projectId));
  return {
    ctx,
    ingestion,
    ingest: (organizationId, projectId, spans, path) => ingestion.ingest(organizationId, projectId, spans, path),
    detail: (projectId, traceId) => detail(ctx, projectId, traceId),
    contents: (projectId, traceIds, spanTypes) => contents(ctx, projectId, traceIds, spanTypes),
    pageSize: TRACE_CONTENTS_PAGE,
    matching: (projectId, search, limit) => matchingTraceIds(ctx, projectId, search, limit),
    aggregates: traceAggregates(ctx),
    inputs: (projectId, pick, limit, order) => traceInputs(ctx, projectId, pick, limit, order),
    threadTraceIds: async (projectId, threadId, limit) => (await threadTurns(db.orm, projectId, threadId, limit)).map((t) => t.trace_id),
    shareShowsTrace: (token) => shareShowsTrace(ctx, token),
    traceDay: (exec, projectId, traceId) => traceDayOf(exec, projectId, traceId),
    deleteProjectTraces,
    sweepRetention: () => sweepRetention(ctx),
    refreshStatistics: () => refreshStatistics(ctx),
    rollUp: (budgetMs) => rollUpDirtyHours(ctx, budgetMs),
  };
}

/** The traces module's one entry: its routes (search, detail, shares, views, ingest), the retention sweep, and PGlite's planner statistics. */
export const tracesModule: SpyglassModule<{ traces: Traces }> = {
  name: 'traces',
  register: ({ http, scheduler, config }, { traces }) => {
    traceRoutes(http, traces);
    // Days ahead (and yesterday, for late spans) have their partitions before ingest needs them.
    const makeDaysAhead = () => makeDays(traces.ctx);
    http.addHook('onReady', makeDaysAhead);
    scheduler.every({ name: 'day partitions', intervalMs: 6 * 3_600_000, once: false, run: makeDaysAhead });
    scheduler.every({ name: 'trace retention', intervalMs: config.intervals.retentionSweepMs, once: true, run: () => traces.sweepRetention() });
    scheduler.every({ name: 'trace rollups', intervalMs: 60_000, once: true, run: () => traces.rollUp() });
    if (traces.ctx.db.kind === 'pglite') {
      scheduler.every({ name: 'planner statistics', intervalMs: 5 * 60_000, once: false, run: () => traces.refreshStatistics() });
    }
  },
};
