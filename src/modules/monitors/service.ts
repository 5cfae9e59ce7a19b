import { createHash } from 'node:crypto';
import type { Database, Executor } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { enqueueJobs, moveJobs, PermanentJobError, type ClaimedJob } from '../../platform/jobs/index.ts';
import { matchesTraceFilter, type TraceSummary } from '../traces/index.ts';
import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { bucketing, toMillis, type Interval } from '../../platform/time-buckets.ts';
import { changedTrigger, newTrigger, threadDueAt } from './thread-trigger.ts';
import { type MonitorFilters, type MonitorResultsResponse, type MonitorStatsResponse, type MonitorView, type ScoreSummary } from './schemas.ts';
import * as store from './store.ts';
import { presentMonitor } from './presenters.ts';
import { traceData, type TraceDetailLike } from './trace-data.schema.ts';
import { MonitorBackfills } from './backfill.ts';

export const MONITOR_QUEUE = 'monitor.evaluate';
/** A thread monitor's queue: one pending job per (monitor, thread), due once the thread is idle. */
export const THREAD_MONITOR_QUEUE = 'monitor.evaluate-thread';

/** A monitor job: evaluate this trace with this monitor (checked when the job is claimed). */
export const monitorJobPayload = z.object({ monitorId: z.string(), organizationId: z.string(), projectId: z.string(), traceId: z.string() });
export type MonitorJobPayload = z.infer<typeof monitorJobPayload>;

/** A thread monitor job: evaluate this thread, as it is when the job runs, with this monitor. */
export const threadMonitorJobPayload = z.object({ monitorId: z.string(), organizationId: z.string(), projectId: z.string(), threadId: z.string() });
export type ThreadMonitorJobPayload = z.infer<typeof threadMonitorJobPayload>;

/** What monitors need of the evaluators and traces modules (wired by app.ts). */
export interface MonitorDeps {
  /** Throws a 400 AppError naming the field when the evaluator is unknown, the settings are bad or its model has no provider. */
  checkEvaluator(scope: { organizationId: string; projectId: string }, path: string, settings: Record<string, unknown>, unit?: 'trace' | 'thread'): Promise<void>;
  /** Runs and stores an evaluation, recording `monitorId` as its origin. */
  evaluate(
    scope: { organizationId: string; projectId: string },
    path: string,
    body: { data: Record<string, unknown>; settings: Record<string, unknown>; trace_id: string; name: string },
    monitorId: string,
  ): Promise<{ failed: boolean; error: boolean }>;
  /** The custom evaluator version `path` with `settings` runs (null for a built-in evaluator); 400 when it no longer can run. */
  evaluatorVersion(scope: { organizationId: string; projectId: string }, path: string, settings: Record<string, unknown>): Promise<number | null>;
  /** Of `traceIds`, those this monitor already evaluated at this evaluator version. */
  evaluatedTraces(projectId: string, monitorId: string, version: number | null, traceIds: readonly string[]): Promise<Set<string>>;
  /** Ids of the stored traces matching a search, newest first, at most `limit`. */
  matchingTraces(projectId: string, search: { startDate: number; endDate: number; filters?: MonitorFilters }, limit: number): Promise<string[]>;
  /** What running the evaluator once per trace would cost, from the evaluation data of a few traces. */
  estimateCost(
    scope: { organizationId: string; projectId: string },
    path: string,
    settings: Record<string, unknown>,
    samples: Record<string, unknown>[],
  ): Promise<{ usesLlm: boolean; model: string | null; promptTokensPerTrace: number; answerTokensPerTrace: number; costPerTrace: number | null; currency: string }>;
  /** Whether the project has this review queue (the review module's). */
  reviewQueueExists(projectId: string, queueId: string): Promise<boolean>;
  /** Adds a trace the monitor failed to its review queue (once). */
  addToReviewQueue(projectId: string, queueId: string, traceId: string): Promise<void>;
  traceDetail(projectId: string, traceId: string): Promise<TraceDetailLike>;
  /**
   * Evaluates a whole thread with a thread monitor and stores the result against the thread
   * (the threads module). Answers when the thread changed while it ran (a turn came in): it is
   * then due again once idle.
   */
  evaluateThread(monitor: ThreadMonitor, threadId: string): Promise<{ changedSince: boolean }>;
  /** The results a monitor produced, newest first (the evaluators module stores them). */
  results(projectId: string, monitorId: string, page: { pageSize: number; cursor?: string; outcome?: 'passed' | 'failed' | 'error' | 'skipped' }): Promise<MonitorResultsResponse>;
  /** A monitor's results counted per bucket of when they ran. */
  outcomeCounts(
    projectId: string,
    monitorId: string,
    range: { start: number; end: number; bucket: SQL },
  ): Promise<{ b: number; passed: number; failed: number; errors: number; skipped: number }[]>;
  /** A monitor's scores (count, mean, percentiles) and label counts per bucket. */
  scores(
    projectId: string,
    monitorId: string,
    range: { start: number; end: number; bucket: SQL; distribution?: boolean },
  ): Promise<{ scores: ScoreRow[]; labels: { b: number; label: string; n: number }[]; distribution: DistributionRow[] }>;
}

/** A bin of the scores' distribution, with the binning it belongs to (the same on every row). */
interface DistributionRow {
  bins: number;
  lo: number;
  hi: number;
  whole: boolean;
  bin: number;
  n: number;
}

/** Every bin from the lowest score to the highest, empty ones counted 0. */
function distribution(rows: DistributionRow[]): { from: number; to: number; count: number }[] {
  if (!rows.length) return [];
  const [{ bins, lo, hi, whole }] = rows;
  const counts = new Map(rows.map((r) => [Number(r.bin), Number(r.n)]));
  const width = whole ? 1 : (Number(hi) - Number(lo)) / Number(bins);
  return Array.from({ length: Number(bins) }, (_, i) => {
    const from = Number(lo) + i * width;
    return { from, to: whole ? from : i === Number(bins) - 1 ? Number(hi) : from + width, count: counts.get(i) ?? 0 };
  });
}

/** What evaluating a thread needs of its monitor. */
export interface ThreadMonitor {
  id: string;
  organization_id: string;
  project_id: string;
  name: string;
  evaluator: string;
  settings: Record<string, unknown>;
}

interface ScoreRow {
  b: number;
  scored: number;
  mean: number | null;
  min: number | null;
  p50: number | null;
  p90: number | null;
  max: number | null;
}

/** A group's scores as answered: null when nothing in it was scored. */
function scoreSummary(row: ScoreRow | undefined): ScoreSummary | null {
  if (!row || Number(row.scored) === 0) return null;
  return { count: Number(row.scored), mean: Number(row.mean), min: Number(row.min), p50: Number(row.p50), p90: Number(row.p90), max: Number(row.max) };
}

/** A group's labels, most frequent first. */
function labelCounts(rows: { label: string; n: number }[]): { label: string; count: number }[] {
  return rows.map((r) => ({ label: r.label, count: Number(r.n) })).sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
}

export interface MonitorOptions {
  /** Quiet time after a trace's last span before its monitors run (spans keep arriving for a while). */
  settleMs: number;
}

/**
 * How long a process trusts its copy of a project's enabled monitors. Every ingest
 * transaction needs them and they rarely change; this process forgets its copy the moment
 * it changes a monitor, other processes within this time.
 */
export const ENABLED_MONITORS_TTL_MS = 2_000;

export class MonitorService {
  private readonly enabledMonitors = new Map<string, { until: number; monitors: store.MonitorRow[] }>();
  /** Bumped per project by every change, so a read racing a change never stores the old list. */
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly deps: MonitorDeps,
    private readonly options: MonitorOptions = { settleMs: 30_000 },
  ) {
    this.backfills = new MonitorBackfills(db, clock, deps, async (monitor, traceId) => {
      const outcome = await this.evaluateTrace(monitor, traceId);
      return typeof outcome === 'object' ? 'unjudgeable' : outcome;
    });
  }

  /** Runs over traces already stored. */
  readonly backfills: MonitorBackfills;

  async list(projectId: string): Promise<MonitorView[]> {
    return (await store.listMonitors(this.db.orm, projectId)).map(presentMonitor);
  }

  async get(projectId: string, id: string): Promise<MonitorView> {
    return presentMonitor(await this.find(projectId, id));
  }

  async create(
    scope: { organizationId: string; projectId: string },
    input: {
      name: string;
      evaluator: string;
      settings: Record<string, unknown>;
      sample: number;
      filters?: MonitorFilters | null;
      enabled: boolean;
      review_queue_id?: string | null;
      unit?: 'trace' | 'thread';
      idle_minutes?: number | null;
      schedule_minutes?: number | null;
    },
  ): Promise<MonitorView> {
    const unit = input.unit ?? 'trace';
    const trigger = newTrigger(unit, input);
    checkQueueUnit(unit, input.review_queue_id ?? null);
    await this.deps.checkEvaluator(scope, input.evaluator, input.settings, unit);
    await this.checkQueue(scope.projectId, input.review_queue_id ?? null);
    const row = await store.insertMonitor(
      this.db.orm,
      {
        id: newId('mon'),
        organization_id: scope.organizationId,
        project_id: scope.projectId,
        name: input.name,
        evaluator: input.evaluator,
        settings: input.settings,
        sample: input.sample,
        filters: input.filters ?? null,
        enabled: input.enabled,
        review_queue_id: input.review_queue_id ?? null,
        unit,
        ...trigger,
      },
      this.clock.now(),
    );
    this.forgetEnabled(scope.projectId);
    return presentMonitor(row);
  }

  async update(projectId: string, id: string, patch: Partial<Omit<MonitorView, 'id' | 'project_id' | 'unit' | 'created_at' | 'updated_at'>>): Promise<MonitorView> {
    const current = await this.find(projectId, id);
    const trigger = changedTrigger(current.unit, current, patch);
    const next = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)), ...trigger };
    if (patch.review_queue_id) checkQueueUnit(current.unit, patch.review_queue_id);
    if (patch.evaluator !== undefined || patch.settings !== undefined) {
      await this.deps.checkEvaluator({ organizationId: current.organization_id, projectId }, next.evaluator, next.settings, current.unit);
    }
    if (patch.review_queue_id !== undefined) await this.checkQueue(projectId, patch.review_queue_id);
    const row = await store.updateMonitor(this.db.orm, next, this.clock.now());
    if (current.unit === 'thread' && (trigger.idle_minutes !== current.idle_minutes || trigger.schedule_minutes !== current.schedule_minutes)) {
      // Threads already waiting are due by the new trigger: idle from now, or at the schedule's next run.
      await moveJobs(this.db.orm, THREAD_MONITOR_QUEUE, threadJobKeyPrefix(row.id), threadDueAt(trigger, this.clock.now().getTime()));
    }
    this.forgetEnabled(projectId);
    return presentMonitor(row);
  }

  private async checkQueue(projectId: string, queueId: string | null): Promise<void> {
    if (queueId !== null && !(await this.deps.reviewQueueExists(projectId, queueId))) {
      throw new AppError(400, 'unknown_review_queue', `body.review_queue_id: no review queue ${queueId} in this project`, { field: 'body.review_queue_id' });
    }
  }

  async remove(projectId: string, id: string): Promise<{ id: string; deleted: true }> {
    if (!(await store.deleteMonitor(this.db.orm, projectId, id))) throw notFound('monitor_not_found', `no monitor ${id} in this project`);
    this.forgetEnabled(projectId);
    return { id, deleted: true };
  }

  /** The monitor's results, newest first: what its page lists (each links to its trace). */
  async results(projectId: string, id: string, page: { pageSize: number; cursor?: string; outcome?: 'passed' | 'failed' | 'error' | 'skipped' }): Promise<MonitorResultsResponse> {
    await this.find(projectId, id);
    return this.deps.results(projectId, id, page);
  }

  /** Passed, failed, errors and skipped per interval of when they ran: the monitor's pass rate over time. */
  async stats(projectId: string, id: string, q: { startDate?: number | string; endDate?: number | string; interval?: Interval | 'auto'; utcOffsetMinutes?: number }): Promise<MonitorStatsResponse> {
    await this.find(projectId, id);
    const end = q.endDate !== undefined ? toMillis(q.endDate, 'endDate') : this.clock.now().getTime();
    const start = q.startDate !== undefined ? toMillis(q.startDate, 'startDate') : end - 7 * 86_400_000;
    if (end < start) throw new AppError(400, 'invalid_range', 'endDate: before startDate', { field: 'endDate' });
    if (end - start > 400 * 86_400_000) throw new AppError(400, 'invalid_range', 'endDate: at most 400 days after startDate', { field: 'endDate' });
    const b = bucketing(start, end, q.interval ?? 'auto', 'interval', q.utcOffsetMinutes ?? 0);
    const range = { start, end, bucket: b.bucketOf(sql`inserted_at`) };
    const [counts, perBucket, whole] = await Promise.all([
      this.deps.outcomeCounts(projectId, id, range),
      this.deps.scores(projectId, id, range),
      this.deps.scores(projectId, id, { start, end, bucket: sql`0`, distribution: true }),
    ]);
    const byStart = new Map(counts.map((c) => [Number(c.b), c]));
    const scoresByStart = new Map(perBucket.scores.map((r) => [Number(r.b), r]));
    return {
      interval: b.interval,
      intervalMs: b.intervalMs,
      startDate: start,
      endDate: end,
      overall: { score: scoreSummary(whole.scores[0]), distribution: distribution(whole.distribution), labels: labelCounts(whole.labels) },
      buckets: b.starts.map((s) => {
        const c = byStart.get(s);
        const [passed, failed, errors, skipped] = c ? [Number(c.passed), Number(c.failed), Number(c.errors), Number(c.skipped)] : [0, 0, 0, 0];
        return {
          start: s,
          passed,
          failed,
          errors,
          skipped,
          pass_rate: passed + failed > 0 ? passed / (passed + failed) : null,
          score: scoreSummary(scoresByStart.get(s)),
          labels: labelCounts(perBucket.labels.filter((l) => Number(l.b) === s)),
        };
      }),
    };
  }

  private forgetEnabled(projectId: string) {
    this.enabledMonitors.delete(projectId);
    this.generations.set(projectId, (this.generations.get(projectId) ?? 0) + 1);
  }

  /** The project's enabled monitors, read with `tx` (PGlite would wait on its own transaction otherwise) unless recently read. */
  private async enabledFor(tx: Executor, projectId: string): Promise<store.MonitorRow[]> {
    const cached = this.enabledMonitors.get(projectId);
    if (cached && cached.until > performance.now()) return cached.monitors;
    const generation = this.generations.get(projectId) ?? 0;
    const monitors = await store.listMonitors(tx, projectId, true);
    if ((this.generations.get(projectId) ?? 0) === generation) {
      this.enabledMonitors.set(projectId, { until: performance.now() + ENABLED_MONITORS_TTL_MS, monitors });
    }
    return monitors;
  }

  private async find(projectId: string, id: string): Promise<store.MonitorRow> {
    const row = await store.findMonitor(this.db.orm, projectId, id);
    if (!row) throw notFound('monitor_not_found', `no monitor ${id} in this project`);
    return row;
  }

  /**
   * In the ingest transaction: one pending job per (monitor, matching trace), run once the
   * trace has been quiet for `settleMs`; a later span of the trace pushes it back.
   */
  async enqueueForTraces(tx: Executor, batch: { organizationId: string; projectId: string; summaries: TraceSummary[]; now: Date }) {
    const monitors = await this.enabledFor(tx, batch.projectId);
    if (!monitors.length) return;
    const runAt = batch.now.getTime() + this.options.settleMs;
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
  async runJob(job: ClaimedJob<MonitorJobPayload>): Promise<void> {
    const { monitorId, projectId, traceId } = job.payload;
    const monitor = await store.findMonitor(this.db.orm, projectId, monitorId);
    if (!monitor || !monitor.enabled) return; // deleted or paused since: nothing to do
    const outcome = await this.evaluateTrace(monitor, traceId);
    // The trace lacks what the evaluator needs: retrying cannot help.
    if (typeof outcome === 'object') throw new PermanentJobError(outcome.unjudgeable);
  }

  /** A job: evaluate the whole thread (once idle, or at the schedule's run); a thread that changed meanwhile is due again by the same trigger. */
  async runThreadJob(job: ClaimedJob<ThreadMonitorJobPayload>): Promise<void> {
    const { monitorId, projectId, threadId } = job.payload;
    const monitor = await store.findMonitor(this.db.orm, projectId, monitorId);
    if (!monitor || !monitor.enabled || monitor.unit !== 'thread') return; // deleted, paused or changed since
    const { changedSince } = await this.deps.evaluateThread(monitor, threadId);
    if (changedSince) {
      const now = this.clock.now().getTime();
      // The job still holds its key while it runs: the next one gets a key of its own.
      await enqueueJobs(this.db.orm, [threadJob(monitor, job.payload.organizationId, threadId, now, `:${now}`)], now);
    }
  }

  /**
   * Evaluates a whole trace with the monitor, live or in a backfill alike: the result is stored
   * on the trace as the monitor's evaluation, and a trace it fails goes to its review queue.
   */
  private async evaluateTrace(monitor: store.MonitorRow, traceId: string): Promise<MonitorEvaluation | { unjudgeable: string }> {
    const { project_id: projectId, organization_id: organizationId } = monitor;
    let detail: TraceDetailLike;
    try {
      detail = await this.deps.traceDetail(projectId, traceId);
    } catch (err) {
      if (err instanceof AppError && err.status === 404) return 'gone'; // deleted since (retention, project removal)
      throw err;
    }
    let outcome: { failed: boolean; error: boolean };
    try {
      outcome = await this.deps.evaluate({ organizationId, projectId }, monitor.evaluator, {
        data: traceData(detail),
        settings: monitor.settings,
        trace_id: traceId,
        name: monitor.name,
      }, monitor.id);
    } catch (err) {
      if (err instanceof AppError && err.status < 500) return { unjudgeable: err.message };
      throw err;
    }
    // A retried job adds the trace again: a queue holds each trace once.
    if (outcome.failed && monitor.review_queue_id) await this.deps.addToReviewQueue(projectId, monitor.review_queue_id, traceId);
    return outcome.error ? 'error' : 'evaluated';
  }
}

/** Review queues hold traces: a thread monitor has none (400 naming the field). */
function checkQueueUnit(unit: 'trace' | 'thread', reviewQueueId: string | null): void {
  if (unit === 'thread' && reviewQueueId !== null) {
    throw new AppError(400, 'validation_error', 'body.review_queue_id: review queues hold traces; a thread monitor cannot send threads to one', { field: 'body.review_queue_id' });
  }
}

/** One pending job per (thread monitor, thread) of a batch: due once the thread has been idle (each new turn pushes it back), or at the schedule's next run. */
function threadJobs(m: store.MonitorRow, batch: { organizationId: string; summaries: TraceSummary[]; now: Date }) {
  const threads = new Set<string>();
  for (const s of batch.summaries) {
    if (s.thread_id && matchesTraceFilter(m.filters, s) && sampled(m.id, s.thread_id, m.sample)) threads.add(s.thread_id);
  }
  return [...threads].map((threadId) => threadJob(m, batch.organizationId, threadId, batch.now.getTime()));
}

function threadJob(m: store.MonitorRow, organizationId: string, threadId: string, now: number, keySuffix = '') {
  return {
    queue: THREAD_MONITOR_QUEUE,
    dedupeKey: `${threadJobKeyPrefix(m.id)}${threadId}${keySuffix}`,
    runAt: threadDueAt(m, now),
    payload: { monitorId: m.id, organizationId, projectId: m.project_id, threadId } satisfies ThreadMonitorJobPayload,
  };
}

/** The dedupe keys of a thread monitor's jobs start with this. */
function threadJobKeyPrefix(monitorId: string): string {
  return `${monitorId}:thread:`;
}

/** What evaluating one trace came to: a stored result (an error result too), or none (trace gone, or it lacks what the evaluator needs). */
export type MonitorEvaluation = 'evaluated' | 'error' | 'gone' | 'unjudgeable';

/** The dedupe key of a monitor's live job for a trace: one pending job per monitor and trace. */
export function liveJobKey(monitorId: string, traceId: string): string {
  return `${monitorId}:${traceId}`;
}

/** Deterministic: the same trace is always in or out of a monitor's sample. */
export function sampled(monitorId: string, traceId: string, rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  const h = createHash('sha256').update(`${monitorId}:${traceId}`).digest().readUInt32BE(0);
  return h / 0x1_0000_0000 < rate;
}
