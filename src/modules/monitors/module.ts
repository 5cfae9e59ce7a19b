import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { JobQueue } from '../../platform/jobs/index.ts';
import type { MonitorPorts, MonitorsContext } from './context.ts';
import { BACKFILL_QUEUE, backfillJobPayload, MONITOR_QUEUE, monitorJobPayload, THREAD_MONITOR_QUEUE, threadMonitorJobPayload } from './jobs.ts';
import { monitorRoutes } from './routes.ts';
import { runBackfillJob } from './use-cases/backfills.ts';
import { runMonitorJob, runThreadMonitorJob } from './use-cases/live-runs.ts';

/** The monitors' context: what they use of other modules, and this process's copy of the enabled monitors. */
export function buildMonitors(ports: MonitorPorts & { db: Database; clock: Clock; settleMs?: number }): MonitorsContext {
  return { ...ports, settleMs: ports.settleMs ?? 30_000, enabledMonitors: new Map(), generations: new Map() };
}

/** The monitors module's one entry: its routes, and the jobs of its three queues (live traces, idle threads, backfills). */
export function registerMonitors(app: FastifyInstance, jobs: JobQueue, ctx: MonitorsContext): void {
  monitorRoutes(app, ctx);
  jobs.handle(MONITOR_QUEUE, monitorJobPayload, (job) => runMonitorJob(ctx, job));
  jobs.handle(BACKFILL_QUEUE, backfillJobPayload, (job) => runBackfillJob(ctx, job));
  jobs.handle(THREAD_MONITOR_QUEUE, threadMonitorJobPayload, (job) => runThreadMonitorJob(ctx, job));
}
