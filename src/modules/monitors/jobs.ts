import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { TraceSummary } from '../traces/index.ts';
import { matchesTraceFilter } from '../traces/index.ts';
import type { MonitorRow } from './store.ts';
import { threadDueAt } from './thread-trigger.ts';

/*
 * The monitors' job queues: what each job carries, and the keys that keep one pending job per
 * monitor and trace (or thread).
 */

export const MONITOR_QUEUE = 'monitor.evaluate';
/** A thread monitor's queue: one pending job per (monitor, thread), due once the thread is idle. */
export const THREAD_MONITOR_QUEUE = 'monitor.evaluate-thread';
export const BACKFILL_QUEUE = 'monitor.backfill';

/** A monitor job: evaluate this trace with this monitor (checked when the job is claimed). */
export const monitorJobPayload = z.object({ monitorId: z.string(), organizationId: z.string(), projectId: z.string(), traceId: z.string() });
export type MonitorJobPayload = z.infer<typeof monitorJobPayload>;

/** A thread monitor job: evaluate this thread, as it is when the job runs, with this monitor. */
export const threadMonitorJobPayload = z.object({ monitorId: z.string(), organizationId: z.string(), projectId: z.string(), threadId: z.string() });
export type ThreadMonitorJobPayload = z.infer<typeof threadMonitorJobPayload>;

/** A backfill job: the next chunk of a run over past traces. */
export const backfillJobPayload = z.object({ backfillId: z.string() });
export type BackfillJobPayload = z.infer<typeof backfillJobPayload>;

/** The dedupe key of a monitor's live job for a trace: one pending job per monitor and trace. */
export function liveJobKey(monitorId: string, traceId: string): string {
  return `${monitorId}:${traceId}`;
}

/** The dedupe keys of a thread monitor's jobs start with this. */
export function threadJobKeyPrefix(monitorId: string): string {
  return `${monitorId}:thread:`;
}

/** One pending job per (thread monitor, thread) of a batch: due once the thread has been idle (each new turn pushes it back), or at the schedule's next run. */
export function threadJobs(m: MonitorRow, batch: { organizationId: string; summaries: TraceSummary[]; now: Date }) {
  const threads = new Set<string>();
  for (const s of batch.summaries) {
    if (s.thread_id && matchesTraceFilter(m.filters, s) && sampled(m.id, s.thread_id, m.sample)) threads.add(s.thread_id);
  }
  return [...threads].map((threadId) => threadJob(m, batch.organizationId, threadId, batch.now.getTime()));
}

export function threadJob(m: MonitorRow, organizationId: string, threadId: string, now: number, keySuffix = '') {
  return {
    queue: THREAD_MONITOR_QUEUE,
    dedupeKey: `${threadJobKeyPrefix(m.id)}${threadId}${keySuffix}`,
    runAt: threadDueAt(m, now),
    payload: { monitorId: m.id, organizationId, projectId: m.project_id, threadId } satisfies ThreadMonitorJobPayload,
  };
}

/** Deterministic: the same trace is always in or out of a monitor's sample. */
export function sampled(monitorId: string, traceId: string, rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  const h = createHash('sha256').update(`${monitorId}:${traceId}`).digest().readUInt32BE(0);
  return h / 0x1_0000_0000 < rate;
}
