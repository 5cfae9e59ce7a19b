import { and, desc, eq, gte, lte, sql } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { threadEvaluations } from '../../db/schema/threads.ts';
import { rows, textArray, type Executor } from '../../db/index.ts';
import { bucketSql, type BucketSpec } from '../../platform/time-buckets.ts';
import type { ThreadIdsRelation, ThreadsPickedRelation, ThreadValuesRelation } from '../traces/index.ts';

/** A stored result of evaluating a whole thread (table thread_evaluations). */
export interface ThreadEvaluationRow {
  id: string;
  project_id: string;
  thread_id: string;
  monitor_id: string | null;
  evaluator: string;
  evaluator_version: number | null;
  name: string;
  status: 'processed' | 'skipped' | 'error';
  passed: boolean | null;
  score: number | null;
  label: string | null;
  details: string | null;
  cost_amount: number | null;
  trace_ids: string[];
  turns: number;
  covered_through: number;
  inserted_at: number;
}

const COLUMNS = sql.raw(`id, project_id, thread_id, monitor_id, evaluator, evaluator_version, name, status, passed, score, label, details, cost_amount,
  trace_ids, turns, covered_through::float8 AS covered_through, inserted_at::float8 AS inserted_at`);

function toRow(r: Record<string, unknown>): ThreadEvaluationRow {
  return {
    ...(r as unknown as ThreadEvaluationRow),
    evaluator_version: r.evaluator_version === null ? null : Number(r.evaluator_version),
    score: r.score === null ? null : Number(r.score),
    cost_amount: r.cost_amount === null ? null : Number(r.cost_amount),
    turns: Number(r.turns),
    covered_through: Number(r.covered_through),
    inserted_at: Number(r.inserted_at),
  };
}

export async function insertThreadEvaluation(db: Executor, e: ThreadEvaluationRow): Promise<void> {
  await db.execute(sql`
    INSERT INTO thread_evaluations (id, project_id, thread_id, monitor_id, evaluator, evaluator_version, name, status, passed, score, label, details,
      cost_amount, trace_ids, turns, covered_through, inserted_at)
    VALUES (${e.id}, ${e.project_id}, ${e.thread_id}, ${e.monitor_id}, ${e.evaluator}, ${e.evaluator_version}, ${e.name}, ${e.status}, ${e.passed},
      ${e.score}, ${e.label}, ${e.details}, ${e.cost_amount}, ${textArray(e.trace_ids)}, ${e.turns}, ${e.covered_through}, ${e.inserted_at})`);
}

/** The monitor's newest result on the thread, or null. */
export async function latestOfMonitor(db: Executor, projectId: string, monitorId: string, threadId: string): Promise<ThreadEvaluationRow | null> {
  const [r] = await rows<Record<string, unknown>>(
    db,
    sql`SELECT ${COLUMNS} FROM thread_evaluations WHERE project_id = ${projectId} AND thread_id = ${threadId} AND monitor_id = ${monitorId}
        ORDER BY inserted_at DESC, id DESC LIMIT 1`,
  );
  return r ? toRow(r) : null;
}

/** Every result on a thread, newest first. */
export async function listForThread(db: Executor, projectId: string, threadId: string, limit: number): Promise<ThreadEvaluationRow[]> {
  const found = await rows<Record<string, unknown>>(
    db,
    sql`SELECT ${COLUMNS} FROM thread_evaluations WHERE project_id = ${projectId} AND thread_id = ${threadId} ORDER BY inserted_at DESC, id DESC LIMIT ${limit}`,
  );
  return found.map(toRow);
}

/** Per thread, the newest result of each evaluation name (what a threads list shows as its scores). */
export async function latestByThread(db: Executor, projectId: string, threadIds: readonly string[]): Promise<ThreadEvaluationRow[]> {
  if (!threadIds.length) return [];
  const found = await rows<Record<string, unknown>>(
    db,
    sql`SELECT DISTINCT ON (thread_id, name) ${COLUMNS} FROM thread_evaluations
        WHERE project_id = ${projectId} AND thread_id = ANY(${textArray(threadIds)})
        ORDER BY thread_id, name, inserted_at DESC, id DESC`,
  );
  return found.map(toRow);
}

export interface ScoreBucketRow {
  name: string;
  b: number;
  evaluated: number;
  passed: number;
  failed: number;
  errors: number;
  /** Results with a score, and their mean. */
  scored: number;
  mean: number | null;
}

/** A range of a thread series: when stored (epoch ms, inclusive), in these buckets, of only the threads a trace search picked (or all). */
export interface ThreadSeriesRange {
  start: number;
  end: number;
  buckets: BucketSpec;
  threads: ThreadIdsRelation | null;
}

/**
 * Thread results counted per bucket of when they were stored, per evaluation name; only the
 * threads `threads` holds when given.
 */
export async function scoreBuckets(db: Executor, projectId: string, q: ThreadSeriesRange): Promise<ScoreBucketRow[]> {
  return rows<ScoreBucketRow>(
    db,
    sql`SELECT name, ${bucketSql(q.buckets, sql`inserted_at`)} AS b, count(*)::int AS evaluated,
          count(*) FILTER (WHERE status = 'processed' AND passed)::int AS passed,
          count(*) FILTER (WHERE status = 'processed' AND passed = false)::int AS failed,
          count(*) FILTER (WHERE status = 'error')::int AS errors,
          count(score) FILTER (WHERE status = 'processed')::int AS scored,
          avg(score) FILTER (WHERE status = 'processed')::float8 AS mean
        FROM thread_evaluations
        WHERE project_id = ${projectId} AND inserted_at >= ${q.start} AND inserted_at <= ${q.end} ${q.threads === null ? sql`` : sql`AND thread_id IN (SELECT ${q.threads.threadId} FROM ${q.threads})`}
        GROUP BY name, b ORDER BY name, b`,
  );
}

/** Judge alignment: per thread, the newest processed result of an evaluator (at a version, or any), with the turns it covered. */
export async function latestJudgeResults(
  db: Executor,
  projectId: string,
  evaluator: string,
  version: number | null,
): Promise<{ threadId: string; passed: boolean | null; score: number | null; label: string | null; details: string | null; traceIds: string[] }[]> {
  const found = await rows<{ threadId: string; passed: boolean | null; score: number | null; label: string | null; details: string | null; traceIds: string[] }>(
    db,
    sql`SELECT DISTINCT ON (thread_id) thread_id AS "threadId", passed, score, label, details, trace_ids AS "traceIds"
        FROM thread_evaluations
        WHERE project_id = ${projectId} AND evaluator = ${evaluator} AND status = 'processed'
          AND (${version}::int IS NULL OR evaluator_version = ${version}::int)
        ORDER BY thread_id, inserted_at DESC, id DESC`,
  );
  return found.map((r) => ({ ...r, score: r.score === null ? null : Number(r.score) }));
}

/** Judge alignment: the evaluators with processed thread results, their versions and result counts. */
export async function judgesWithResults(db: Executor, projectId: string): Promise<{ evaluator: string; version: number | null; results: number }[]> {
  return rows<{ evaluator: string; version: number | null; results: number }>(
    db,
    sql`SELECT evaluator, evaluator_version AS version, count(*)::int AS results
        FROM thread_evaluations WHERE project_id = ${projectId} AND status = 'processed'
        GROUP BY evaluator, evaluator_version ORDER BY evaluator, evaluator_version`,
  );
}

/**
 * Alerts: thread results per window of when they were stored (windows of `windowMs` from
 * `origin`), per evaluation name when `byName`, of one name (or every one): results, errors,
 * verdicts, passes, and the scores given.
 */
export async function windowResults(
  db: Executor,
  projectId: string,
  q: { origin: number; windowMs: number; end: number; name: string | null; byName: boolean },
): Promise<{ window: number; g: string | null; ran: number; errors: number; verdicts: number; passed: number; scores: number[] }[]> {
  const o = sql.raw(`${Math.trunc(q.origin)}::bigint`);
  const w = sql.raw(`${Math.trunc(q.windowMs)}::bigint`);
  const found = await rows<{ window: number; g: string | null; ran: number; errors: number; verdicts: number; passed: number; scores: number[] | null }>(
    db,
    sql`SELECT (((inserted_at - ${o}) / ${w}) * ${w} + ${o})::float8 AS window, ${q.byName ? sql`name` : sql`NULL::text`} AS g,
          count(*)::int AS ran, count(*) FILTER (WHERE status = 'error')::int AS errors,
          count(*) FILTER (WHERE status = 'processed' AND passed IS NOT NULL)::int AS verdicts,
          count(*) FILTER (WHERE status = 'processed' AND passed)::int AS passed,
          array_agg(score) FILTER (WHERE status = 'processed' AND score IS NOT NULL) AS scores
        FROM thread_evaluations
        WHERE project_id = ${projectId} AND inserted_at >= ${q.origin} AND inserted_at < ${q.end}
          ${q.name === null ? sql`` : sql`AND (name = ${q.name} OR evaluator = ${q.name})`}
        GROUP BY 1, 2`,
  );
  return found.map((r) => ({ window: Number(r.window), g: r.g, ran: Number(r.ran), errors: Number(r.errors), verdicts: Number(r.verdicts), passed: Number(r.passed), scores: (r.scores ?? []).map(Number) }));
}

/** Whether the project has a thread result of this evaluation name or evaluator path. */
export async function hasResultsOf(db: Executor, projectId: string, nameOrPath: string): Promise<boolean> {
  const [r] = await rows<{ one: number }>(db, sql`SELECT 1 AS one FROM thread_evaluations WHERE project_id = ${projectId} AND (name = ${nameOrPath} OR evaluator = ${nameOrPath}) LIMIT 1`);
  return r !== undefined;
}

/** Per thread, its newest result of the evaluation `name` (the threads list's columns): a subquery. */
function newestOf(projectId: string, name: string) {
  const e = threadEvaluations;
  return new QueryBuilder()
    .selectDistinctOn([e.threadId], { threadId: e.threadId, status: e.status, passed: e.passed, score: e.score })
    .from(e)
    .where(and(eq(e.projectId, projectId), eq(e.name, name)))
    .orderBy(e.threadId, desc(e.insertedAt), desc(e.id))
    .as('newest_results');
}

/** The threads whose newest result of the evaluation `f.name` has the verdict, status and score asked for: a typed relation the threads list keeps. */
export function evaluationFilterRelation(projectId: string, f: { name: string; passed?: boolean; status?: string; min?: number; max?: number }): ThreadsPickedRelation {
  const e = newestOf(projectId, f.name);
  return new QueryBuilder()
    .select({ threadId: sql<string>`${e.threadId}`.as('evaluated_thread_id') })
    .from(e)
    .where(
      and(
        f.passed === undefined ? undefined : eq(e.passed, f.passed),
        f.status === undefined ? undefined : eq(e.status, f.status),
        f.min === undefined ? undefined : gte(e.score, f.min),
        f.max === undefined ? undefined : lte(e.score, f.max),
      ),
    )
    .as('evaluated_threads');
}

/** Each thread's newest result of the evaluation `name` (threadId, value): its score, else its verdict (1 pass, 0 fail); null for an error or a skip. */
export function evaluationSortRelation(projectId: string, name: string): ThreadValuesRelation {
  const e = newestOf(projectId, name);
  return new QueryBuilder()
    .select({
      threadId: sql<string>`${e.threadId}`.as('sort_thread_id'),
      value: sql<number | null>`CASE WHEN ${e.status} = 'processed' THEN coalesce(${e.score}, ${e.passed}::int::float8) END`.as('sort_value'),
    })
    .from(e)
    .as('sort_values');
}

/** Whether the project has a thread result of this evaluation name (a thread monitor's name). */
export async function hasEvaluationNamed(db: Executor, projectId: string, name: string): Promise<boolean> {
  const [r] = await rows<{ one: number }>(db, sql`SELECT 1 AS one FROM thread_evaluations WHERE project_id = ${projectId} AND name = ${name} LIMIT 1`);
  return r !== undefined;
}
