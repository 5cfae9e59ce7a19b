import type { Executor } from '../../../db/index.ts';
import { enqueueJobs, PermanentJobError, type ClaimedJob } from '../../../platform/jobs/index.ts';
import { matchesTraceFilter, type TraceSummary } from '../../traces/index.ts';
import type { MonitorsContext } from '../context.ts';
import { liveJobKey, MONITOR_QUEUE, sampled, threadJob, threadJobs, type MonitorJobPayload, type ThreadMonitorJobPayload } from '../jobs.ts';
import * as store from '../store.ts';
import { enabledMonitors } from './enabled-monitors.ts';
import { evaluateTrace } from './evaluate-trace.ts';

/**
 * In the ingest transaction: one pending job per (monitor, matching trace), run once the
 * trace has been quiet for `settleMs`; a later span of the trace pushes it back.
 */
export async function enqueueForTraces(ctx: Pick<MonitorsContext, 'settleMs' | 'enabledMonitors' | 'generations'>, tx: Executor, batch: { organizationId: string; projectId: string; summaries: TraceSummary[]; now: Date }): Promise<void> {
  const monitors = await enabledMonitors(ctx, tx, batch.projectId);
  if (!monitors.length) return;
  const runAt = batch.now.getTime() + ctx.settleMs;
  const jobs = [];
  for (const m of monitors) {
    if (m.unit === 'thread') {
      jobs.push(...threadJobs(m, batch));
      continue;
    }
    for (const s of batch.summaries) {
      if (!matchesTraceFilter(m.filters, s) || !sampled(m.id, s.trace_id, m.sample)) continue;
      jobs.push({
        queue: MONITOR_QUEUE,
        dedupeKey: liveJobKey(m.id, s.trace_id),
        runAt,
        payload: { monitorId: m.id, organizationId: batch.organizationId, projectId: batch.projectId, traceId: s.trace_id } satisfies MonitorJobPayload,
      });
    }
  }
  await enqueueJobs(tx, jobs, batch.now.getTime());
}

/** A job: evaluate the whole trace; the result lands on the trace as an evaluation. */
export async function runMonitorJob(ctx: MonitorsContext, job: ClaimedJob<MonitorJobPayload>): Promise<void> {
  const { monitorId, projectId, traceId } = job.payload;
  const monitor = await store.findMonitor(ctx.db.orm, projectId, monitorId);
  if (!monitor || !monitor.enabled) return; // deleted or paused since: nothing to do
  const outcome = await evaluateTrace(ctx, monitor, traceId);
  // The trace lacks what the evaluator needs: retrying cannot help.
  if (typeof outcome === 'object') throw new PermanentJobError(outcome.unjudgeable);
}

/** A job: evaluate the whole thread (once idle, or at the schedule's run); a thread that changed meanwhile is due again by the same trigger. */
export async function runThreadMonitorJob(ctx: MonitorsContext, job: ClaimedJob<ThreadMonitorJobPayload>): Promise<void> {
  const { monitorId, projectId, threadId } = job.payload;
  const monitor = await store.findMonitor(ctx.db.orm, projectId, monitorId);
  if (!monitor || !monitor.enabled || monitor.unit !== 'thread') return; // deleted, paused or changed since
  const { changedSince } = await ctx.evaluateThread(monitor, threadId);
  if (changedSince) {
    const now = ctx.clock.now().getTime();
    // The job still holds its key while it runs: the next one gets a key of its own.
    await enqueueJobs(ctx.db.orm, [threadJob(monitor, job.payload.organizationId, threadId, now, `:${now}`)], now);
  }
}
