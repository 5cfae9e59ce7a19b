import { and, asc, eq, lt, lte, sql, type SQL } from 'drizzle-orm';
import { dayOf } from '../../db/day-partitions.ts';
import { rows, type Executor, textArray } from '../../db/index.ts';
import { evaluations } from '../../db/schema/evaluators.ts';
import { bucketSql, type BucketSpec } from '../../platform/time-buckets.ts';

export type EvaluationRow = typeof evaluations.$inferSelect;
export type NewEvaluationRow = typeof evaluations.$inferInsert;

export async function insertEvaluation(db: Executor, row: NewEvaluationRow): Promise<EvaluationRow> {
  const [inserted] = await db.insert(evaluations).values(row).returning();
  return inserted;
}

/** A trace's evaluations, oldest first. */
export async function listByTrace(db: Executor, projectId: string, traceId: string): Promise<EvaluationRow[]> {
  return db
    .select()
    .from(evaluations)
    .where(and(eq(evaluations.projectId, projectId), eq(evaluations.traceId, traceId)))
    .orderBy(asc(evaluations.insertedAt), asc(evaluations.id));
}

export async function deleteByTraces(db: Executor, projectId: string, traceIds: readonly string[]): Promise<number> {
  if (traceIds.length === 0) return 0;
  // One JSON parameter, not one per id: a retention round passes thousands of ids.
  const deleted = await db
    .delete(evaluations)
    .where(and(eq(evaluations.projectId, projectId), sql`${evaluations.traceId} = ANY(${textArray(traceIds)})`))
    .returning({ id: evaluations.id });
  return deleted.length;
}

/**
 * Deletes the project's results stored before `beforeMs` (their traces never came, or went
 * without them). Only days up to that one are read: a result is kept in its trace's day (which
 * began before it was stored) or, without its trace, the day it was stored on; a result of a
 * trace dated after it was stored goes when that day is dropped.
 */
export async function deleteInsertedBefore(db: Executor, projectId: string, beforeMs: number): Promise<number> {
  const deleted = await db
    .delete(evaluations)
    .where(and(eq(evaluations.projectId, projectId), lt(evaluations.insertedAt, beforeMs), lte(evaluations.day, dayOf(beforeMs))))
    .returning({ id: evaluations.id });
  return deleted.length;
}

export type Outcome = 'passed' | 'failed' | 'error' | 'skipped';

const OUTCOME_CONDITION: Record<Outcome, SQL> = {
  passed: sql`status = 'processed' AND passed`,
  failed: sql`status = 'processed' AND NOT passed`,
  error: sql`status = 'error'`,
  skipped: sql`status = 'skipped'`,
};

/** A monitor's results, newest first, after a keyset position (read by evaluations_monitor). */
export async function listByMonitor(
  db: Executor,
  projectId: string,
  monitorId: string,
  q: { limit: number; after: { insertedAt: number; id: string } | null; outcome?: Outcome },
): Promise<EvaluationRow[]> {
  const after = q.after ? sql`AND (inserted_at < ${q.after.insertedAt} OR (inserted_at = ${q.after.insertedAt} AND id < ${q.after.id}))` : sql``;
  const outcome = q.outcome ? sql`AND ${OUTCOME_CONDITION[q.outcome]}` : sql``;
  return db
    .select()
    .from(evaluations)
    .where(sql`project_id = ${projectId} AND monitor_id = ${monitorId} ${after} ${outcome}`)
    .orderBy(sql`inserted_at DESC, id DESC`)
    .limit(q.limit);
}

/** A range of a monitor's results (epoch ms of when stored, inclusive) in buckets of when they were stored; `buckets` null: one bucket, the whole range. */
export interface MonitorStatsRange {
  start: number;
  end: number;
  buckets: BucketSpec | null;
}

/** The bucket start of a result's inserted_at (0: the range is one bucket). */
const storedBucket = (buckets: BucketSpec | null): SQL => (buckets === null ? sql`0` : bucketSql(buckets, sql`inserted_at`));

/** A monitor's results counted per bucket of inserted_at. */
export async function countByMonitor(db: Executor, projectId: string, monitorId: string, range: MonitorStatsRange) {
  return rows<{ b: number; passed: number; failed: number; errors: number; skipped: number }>(
    db,
    sql`SELECT ${storedBucket(range.buckets)} AS b, count(*) FILTER (WHERE ${OUTCOME_CONDITION.passed})::int AS passed,
          count(*) FILTER (WHERE ${OUTCOME_CONDITION.failed})::int AS failed, count(*) FILTER (WHERE ${OUTCOME_CONDITION.error})::int AS errors,
          count(*) FILTER (WHERE ${OUTCOME_CONDITION.skipped})::int AS skipped
        FROM evaluations
        WHERE project_id = ${projectId} AND monitor_id = ${monitorId} AND inserted_at >= ${range.start} AND inserted_at <= ${range.end}
        GROUP BY 1`,
  );
}

/**
 * A monitor's scores and labels per bucket (or over the whole range, `buckets` null):
 * how many scored, their mean and percentiles, and the count of each label. Percentiles are
 * computed per group, never merged from smaller ones. With `distribution`, also how many scores
 * fall in each bin from the range's lowest to its highest score.
 */
export async function scoresByMonitor(db: Executor, projectId: string, monitorId: string, range: MonitorStatsRange & { distribution?: boolean }) {
  const bucket = storedBucket(range.buckets);
  const where = sql`project_id = ${projectId} AND monitor_id = ${monitorId} AND inserted_at >= ${range.start} AND inserted_at <= ${range.end} AND status = 'processed'`;
  const scores = await rows<{ b: number; scored: number; mean: number | null; min: number | null; p50: number | null; p90: number | null; max: number | null }>(
    db,
    sql`SELECT ${bucket} AS b, count(score)::int AS scored, avg(score)::float8 AS mean, min(score)::float8 AS min,
          (percentile_cont(0.5) WITHIN GROUP (ORDER BY score))::float8 AS p50, (percentile_cont(0.9) WITHIN GROUP (ORDER BY score))::float8 AS p90, max(score)::float8 AS max
        FROM evaluations WHERE ${where} AND score IS NOT NULL GROUP BY 1`,
  );
  const labels = await rows<{ b: number; label: string; n: number }>(
    db,
    sql`SELECT ${bucket} AS b, label, count(*)::int AS n FROM evaluations WHERE ${where} AND label IS NOT NULL GROUP BY 1, 2`,
  );
  if (!range.distribution) return { scores, labels, distribution: [] };
  // The scores' distribution over the whole range: one bin per value when every score is a whole
  // number and there are at most 20 of them from the lowest to the highest, else 10 equal widths.
  const distribution = await rows<{ bins: number; lo: number; hi: number; whole: boolean; bin: number; n: number }>(
    db,
    sql`WITH s AS (SELECT score FROM evaluations WHERE ${where} AND score IS NOT NULL),
        r AS (SELECT min(score)::float8 AS lo, max(score)::float8 AS hi, bool_and(score = trunc(score)) AS whole FROM s),
        k AS (SELECT lo, hi, whole AND hi - lo < 20 AS whole, CASE WHEN whole AND hi - lo < 20 THEN (hi - lo)::int + 1 WHEN hi = lo THEN 1 ELSE 10 END AS bins FROM r)
        SELECT k.bins, k.lo, k.hi, k.whole,
          least(floor(CASE WHEN k.whole THEN s.score - k.lo ELSE (s.score - k.lo) / nullif(k.hi - k.lo, 0) * k.bins END), k.bins - 1)::int AS bin, count(*)::int AS n
        FROM s CROSS JOIN k GROUP BY 1, 2, 3, 4, 5`,
  );
  return { scores, labels, distribution };
}

/** Of `traceIds`, those a monitor already evaluated with this evaluator version (null: a built-in evaluator). */
export async function tracesEvaluatedByMonitor(db: Executor, projectId: string, monitorId: string, version: number | null, traceIds: readonly string[]): Promise<Set<string>> {
  if (traceIds.length === 0) return new Set();
  const found = await rows<{ trace_id: string }>(
    db,
    sql`SELECT DISTINCT trace_id FROM evaluations
        WHERE project_id = ${projectId} AND monitor_id = ${monitorId} AND evaluator_version IS NOT DISTINCT FROM ${version}::int
          AND trace_id = ANY(${textArray(traceIds)})`,
  );
  return new Set(found.map((r) => r.trace_id));
}

/** A judge's latest processed result on each trace it judged (for measuring it against people). */
export interface JudgeResultRow {
  traceId: string;
  passed: boolean | null;
  score: number | null;
  label: string | null;
  details: string | null;
}

export async function latestResultsByTrace(db: Executor, projectId: string, evaluator: string, version: number | null): Promise<JudgeResultRow[]> {
  return rows<JudgeResultRow>(
    db,
    sql`SELECT DISTINCT ON (trace_id) trace_id AS "traceId", passed, score, label, details
        FROM evaluations
        WHERE project_id = ${projectId} AND evaluator = ${evaluator} AND status = 'processed'
          AND (${version}::int IS NULL OR evaluator_version = ${version}::int)
        ORDER BY trace_id, inserted_at DESC, id DESC`,
  );
}

/** Every evaluator with processed results in the project: its versions and how many results. */
export async function evaluatorsWithResults(db: Executor, projectId: string): Promise<{ evaluator: string; versions: number[]; results: number }[]> {
  const found = await rows<{ evaluator: string; version: number | null; results: number }>(
    db,
    sql`SELECT evaluator, evaluator_version AS version, count(*)::int AS results
        FROM evaluations WHERE project_id = ${projectId} AND status = 'processed'
        GROUP BY evaluator, evaluator_version ORDER BY evaluator, evaluator_version`,
  );
  const byEvaluator = new Map<string, { evaluator: string; versions: number[]; results: number }>();
  for (const r of found) {
    const e = byEvaluator.get(r.evaluator) ?? { evaluator: r.evaluator, versions: [], results: 0 };
    if (r.version !== null) e.versions.push(r.version);
    e.results += r.results;
    byEvaluator.set(r.evaluator, e);
  }
  return [...byEvaluator.values()];
}

/** The versions of a custom evaluator that have results in the project. */
export async function resultVersions(db: Executor, projectId: string, evaluator: string): Promise<number[]> {
  const found = await rows<{ v: number }>(
    db,
    sql`SELECT DISTINCT evaluator_version AS v FROM evaluations WHERE project_id = ${projectId} AND evaluator = ${evaluator} AND evaluator_version IS NOT NULL`,
  );
  return found.map((r) => r.v);
}
