import type { SpyglassModule } from '../../platform/module.ts';
import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { checkMonitorEvaluator, describeForRuns, estimateCost, evaluate, monitorOutcomeCounts, monitorResults, monitorScores, tracesEvaluatedByMonitor, type EvaluatorsContext } from '../evaluators/index.ts';
import { addMonitorFailure, queueExists, type ReviewDeps } from '../review/index.ts';
import { threads, type ThreadsContext } from '../threads/index.ts';
import type { TraceExtension, Traces } from '../traces/index.ts';
import type { MonitorPorts, MonitorsContext } from './context.ts';
import { BACKFILL_QUEUE, backfillJobPayload, MONITOR_QUEUE, monitorJobPayload, THREAD_MONITOR_QUEUE, threadMonitorJobPayload } from './jobs.ts';
import { monitorRoutes } from './routes.ts';
import { runBackfillJob } from './use-cases/backfills.ts';
import { enqueueForTraces, runMonitorJob, runThreadMonitorJob } from './use-cases/live-runs.ts';

/** What the monitors take from other modules: the evaluators' runs and results, review queues, traces and threads. */
export interface MonitorsModulePorts {
  db: Database;
  clock: Clock;
  /** The enabled monitors every ingest transaction reads (`liveMonitors`, made before traces). */
  live: LiveMonitors;
  evaluations: EvaluatorsContext;
  review: ReviewDeps;
  traces: Pick<Traces, 'matching' | 'detail'>;
  threads: ThreadsContext;
}

/** The monitors' context: what they use of other modules, and this process's copy of the enabled monitors. */
export function buildMonitors(modules: MonitorsModulePorts): MonitorsContext {
  const { db, evaluations, review, traces } = modules;
  const ports: MonitorPorts = {
    checkEvaluator: (scope, path, settings, unit) => checkMonitorEvaluator(evaluations, scope, path, settings, unit),
    evaluate: async (scope, path, body, monitorId) => {
      const outcome = await evaluate(evaluations, scope, path, body, undefined, { monitorId });
      return { failed: outcome.results.some((r) => r.passed === false), error: outcome.results.some((r) => r.status === 'error') };
    },
    evaluatorVersion: async (scope, path, settings) => (await describeForRuns(evaluations, scope, path, settings)).version,
    evaluatedTraces: (projectId, monitorId, version, traceIds) => tracesEvaluatedByMonitor(db, projectId, monitorId, version, traceIds),
    matchingTraces: (projectId, search, limit) => traces.matching(projectId, search, limit),
    estimateCost: (scope, path, settings, samples) => estimateCost(evaluations, scope, path, settings, samples),
    reviewQueueExists: (projectId, queueId) => queueExists(review, projectId, queueId),
    addToReviewQueue: (projectId, queueId, traceId) => addMonitorFailure(review, projectId, queueId, traceId),
    traceDetail: (projectId, traceId) => traces.detail(projectId, traceId),
    evaluateThread: (monitor, threadId) => threads(modules.threads).evaluate(monitor, threadId),
    results: (projectId, monitorId, page) => monitorResults(db, projectId, monitorId, page),
    outcomeCounts: (projectId, monitorId, range) => monitorOutcomeCounts(db, projectId, monitorId, range),
    scores: (projectId, monitorId, range) => monitorScores(db, projectId, monitorId, range),
  };
  return { ...ports, db, clock: modules.clock, ...modules.live };
}

/** The monitors module's one entry: its routes, and the jobs of its three queues (live traces, idle threads, backfills). */
export const monitorsModule: SpyglassModule<{ monitors: MonitorsContext }> = {
  name: 'monitors',
  register: ({ http, jobs }, { monitors: ctx }) => {
    monitorRoutes(http, ctx);
    jobs.handle(MONITOR_QUEUE, monitorJobPayload, (job) => runMonitorJob(ctx, job));
    jobs.handle(BACKFILL_QUEUE, backfillJobPayload, (job) => runBackfillJob(ctx, job));
    jobs.handle(THREAD_MONITOR_QUEUE, threadMonitorJobPayload, (job) => runThreadMonitorJob(ctx, job));
  },
};

/** What an ingest transaction reads of the monitors: the settle time, and this process's copy of the enabled monitors. */
export type LiveMonitors = Pick<MonitorsContext, 'settleMs' | 'enabledMonitors' | 'generations'>;

/**
 * The enabled monitors as ingest reads them, made before traces (whose ingest runs monitors'
 * extension) and then shared with the monitors' context (whose changes forget a project's copy).
 * `settleMs`: quiet time after a trace's last span before its monitors run.
 */
export function liveMonitors(settleMs = 30_000): LiveMonitors {
  return { settleMs, enabledMonitors: new Map(), generations: new Map() };
}

/** What monitors add to traces: their jobs, enqueued in the ingest transaction (durable exactly when the spans are). */
export function monitorsTraceExtension(live: LiveMonitors): TraceExtension {
  return { beforeCommit: (tx, batch) => enqueueForTraces(live, tx, batch) };
}
