import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { BucketSpec } from '../../platform/time-buckets.ts';
import type { MonitorFilters, MonitorResultsResponse } from './schemas.ts';
import type { MonitorRow } from './store.ts';
import type { TraceDetailLike } from './trace-data.schema.ts';

export interface Scope {
  organizationId: string;
  projectId: string;
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

/** A row of a monitor's scores per bucket. */
export interface ScoreRow {
  b: number;
  scored: number;
  mean: number | null;
  min: number | null;
  p50: number | null;
  p90: number | null;
  max: number | null;
}

/** A bin of the scores' distribution, with the binning it belongs to (the same on every row). */
export interface DistributionRow {
  bins: number;
  lo: number;
  hi: number;
  whole: boolean;
  bin: number;
  n: number;
}

/** What monitors need of the evaluators, traces, threads and review modules (given when the app is built). */
export interface MonitorPorts {
  /** Throws a 400 AppError naming the field when the evaluator is unknown, the settings are bad or its model has no provider. */
  checkEvaluator(scope: Scope, path: string, settings: Record<string, unknown>, unit?: 'trace' | 'thread'): Promise<void>;
  /** Runs and stores an evaluation, recording `monitorId` as its origin. */
  evaluate(scope: Scope, path: string, body: { data: Record<string, unknown>; settings: Record<string, unknown>; trace_id: string; name: string }, monitorId: string): Promise<{ failed: boolean; error: boolean }>;
  /** The custom evaluator version `path` with `settings` runs (null for a built-in evaluator); 400 when it no longer can run. */
  evaluatorVersion(scope: Scope, path: string, settings: Record<string, unknown>): Promise<number | null>;
  /** Of `traceIds`, those this monitor already evaluated at this evaluator version. */
  evaluatedTraces(projectId: string, monitorId: string, version: number | null, traceIds: readonly string[]): Promise<Set<string>>;
  /** Ids of the stored traces matching a search, newest first, at most `limit`. */
  matchingTraces(projectId: string, search: { startDate: number; endDate: number; filters?: MonitorFilters }, limit: number): Promise<string[]>;
  /** What running the evaluator once per trace would cost, from the evaluation data of a few traces. */
  estimateCost(
    scope: Scope,
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
  /** A monitor's results counted per bucket of when they ran (`buckets` null: the whole range as one). */
  outcomeCounts(projectId: string, monitorId: string, range: { start: number; end: number; buckets: BucketSpec | null }): Promise<{ b: number; passed: number; failed: number; errors: number; skipped: number }[]>;
  /** A monitor's scores (count, mean, percentiles) and label counts per bucket. */
  scores(
    projectId: string,
    monitorId: string,
    range: { start: number; end: number; buckets: BucketSpec | null; distribution?: boolean },
  ): Promise<{ scores: ScoreRow[]; labels: { b: number; label: string; n: number }[]; distribution: DistributionRow[] }>;
}

/** What the module's use cases work with (built by module.ts). */
export interface MonitorsContext extends MonitorPorts {
  db: Database;
  clock: Clock;
  /** Quiet time after a trace's last span before its monitors run (spans keep arriving for a while). */
  settleMs: number;
  /** This process's copy of each project's enabled monitors (every ingest transaction reads them). */
  enabledMonitors: Map<string, { until: number; monitors: MonitorRow[] }>;
  /** Bumped per project by every change, so a read racing a change never stores the old list. */
  generations: Map<string, number>;
}
