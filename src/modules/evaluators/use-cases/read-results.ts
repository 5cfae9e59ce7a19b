import type { Database, Executor } from '../../../db/index.ts';
import { badRequest } from '../../../platform/errors.ts';
import { presentMonitorResult, presentTraceEvaluation, type MonitorResult } from '../presenters.ts';
import type { TraceEvaluation } from '../schemas.ts';
import * as store from '../store.ts';

/*
 * Stored results as the other modules read them (traces, monitors, judge alignment), and
 * their deletion with their traces. Each takes the database (or the caller's transaction).
 */

const executor = (db: Database | Executor): Executor => ('orm' in db ? db.orm : db);

/** The spec's "Trace evaluation" objects of one trace, oldest first (the traces module reads them). */
export async function listTraceEvaluations(db: Database | Executor, projectId: string, traceId: string): Promise<TraceEvaluation[]> {
  return (await store.listByTrace(executor(db), projectId, traceId)).map(presentTraceEvaluation);
}

/** For judge alignment: a judge's latest processed result per trace (at a custom judge's version when given). */
export async function judgeResultsByTrace(db: Database, projectId: string, evaluator: string, version: number | null): Promise<store.JudgeResultRow[]> {
  return store.latestResultsByTrace(db.orm, projectId, evaluator, version);
}

/** For judge alignment: every evaluator with processed results in the project, with its versions and result count. */
export async function judgesWithResults(db: Database, projectId: string): Promise<{ evaluator: string; versions: number[]; results: number }[]> {
  return store.evaluatorsWithResults(db.orm, projectId);
}

/** For judge alignment: the versions of a custom judge that left results. */
export async function judgeResultVersions(db: Database, projectId: string, evaluator: string): Promise<number[]> {
  return store.resultVersions(db.orm, projectId, evaluator);
}

/** The results a monitor produced, newest first, a keyset page at a time (`cursor` from the previous page). */
export async function monitorResults(
  db: Database,
  projectId: string,
  monitorId: string,
  page: { pageSize: number; cursor?: string; outcome?: store.Outcome },
): Promise<{ data: MonitorResult[]; next_cursor: string | null }> {
  let after: { insertedAt: number; id: string } | null = null;
  if (page.cursor) {
    try {
      const c = JSON.parse(Buffer.from(page.cursor, 'base64url').toString('utf8')) as { t: unknown; i: unknown };
      if (typeof c.t === 'number' && typeof c.i === 'string') after = { insertedAt: c.t, id: c.i };
    } catch {
      /* answered below */
    }
    if (!after) throw badRequest('invalid_cursor', 'cursor: not one this server issued', 'cursor');
  }
  const found = await store.listByMonitor(db.orm, projectId, monitorId, { limit: page.pageSize + 1, after, outcome: page.outcome });
  const rows = found.slice(0, page.pageSize);
  const last = rows[rows.length - 1];
  return {
    data: rows.map(presentMonitorResult),
    next_cursor: found.length > page.pageSize && last ? Buffer.from(JSON.stringify({ t: Number(last.insertedAt), i: last.id })).toString('base64url') : null,
  };
}

/** Of `traceIds`, those the monitor already evaluated with this evaluator version (a backfill skips them). */
export function tracesEvaluatedByMonitor(db: Database, projectId: string, monitorId: string, version: number | null, traceIds: readonly string[]): Promise<Set<string>> {
  return store.tracesEvaluatedByMonitor(db.orm, projectId, monitorId, version, traceIds);
}

/** A monitor's results counted per time bucket (of when they were stored). */
export async function monitorOutcomeCounts(db: Database, projectId: string, monitorId: string, range: store.MonitorStatsRange) {
  return store.countByMonitor(db.orm, projectId, monitorId, range);
}

/** A monitor's scores (count, mean, percentiles) and label counts per time bucket. */
export async function monitorScores(db: Database, projectId: string, monitorId: string, range: store.MonitorStatsRange & { distribution?: boolean }) {
  return store.scoresByMonitor(db.orm, projectId, monitorId, range);
}

/** For the traces module's deletions and retention sweep: the evaluations of these traces go with them. */
export async function deleteTraceEvaluations(db: Database | Executor, projectId: string, traceIds: readonly string[]): Promise<number> {
  return store.deleteByTraces(executor(db), projectId, traceIds);
}

/**
 * Retention for results whose trace never arrived (or was swept): everything of the project
 * stored before `beforeMs` (epoch ms).
 */
export async function deleteEvaluationsInsertedBefore(db: Database | Executor, projectId: string, beforeMs: number): Promise<number> {
  return store.deleteInsertedBefore(executor(db), projectId, beforeMs);
}
