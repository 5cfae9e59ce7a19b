import { sql, type SQL } from 'drizzle-orm';
import { jsonParam, rows, textArray, type Executor } from '../../db/index.ts';
import type { EvaluationIn, ResultRowIn, StoredTarget } from './store.ts';

/**
 * SQL for reading and comparing runs: a run's values as one comma-separated list per column and
 * group (string_agg), not one row per result, and the pages of rows side by side. Every query
 * starts from an experiment id found through the project.
 */

export interface AnalysisExperiment {
  id: string;
  slug: string;
  baselineRunId: string | null;
}

export interface RunHead {
  runId: string;
  createdAt: number;
  finishedAt: number | null;
  stoppedAt: number | null;
  targets: StoredTarget[];
  /** renewed by every write of the run's rows or evaluations: what a process keeps of a run is good while it is unchanged */
  resultsVersion: string;
}

export async function findExperiment(db: Executor, projectId: string, slug: string): Promise<AnalysisExperiment | null> {
  const [row] = await rows<AnalysisExperiment>(
    db,
    sql`SELECT id, slug, baseline_run_id AS "baselineRunId" FROM experiments WHERE project_id = ${projectId} AND slug = ${slug}`,
  );
  return row ?? null;
}

export async function setBaseline(db: Executor, experimentId: string, runId: string | null): Promise<void> {
  await db.execute(sql`UPDATE experiments SET baseline_run_id = ${runId} WHERE id = ${experimentId}`);
}

/** The runs of `runIds` the experiment holds (any order). */
export async function findRunHeads(db: Executor, experimentId: string, runIds: string[]): Promise<RunHead[]> {
  return rows<RunHead>(
    db,
    sql`SELECT run_id AS "runId", created_at::float8 AS "createdAt", finished_at::float8 AS "finishedAt", stopped_at::float8 AS "stoppedAt", targets,
          results_version::text AS "resultsVersion"
        FROM experiment_runs WHERE experiment_id = ${experimentId} AND run_id = ANY(${textArray(runIds)})`,
  );
}

/** A run's result rows of one target: aligned comma-separated lists, one entry per row in no particular order (`idx` keys each). */
export interface TargetRowLists {
  targetId: string;
  idx: string;
  /** one character per row: 1 when the row has an error */
  errors: string;
  /** '' where none */
  durations: string;
  costs: string;
}

/** A run's evaluation results of one target and evaluator, as TargetRowLists. */
export interface EvaluatorResultLists {
  targetId: string;
  evaluator: string;
  processedName: string | null;
  anyName: string | null;
  idx: string;
  /** one character per result: p(rocessed), s(kipped), e(rror) */
  statuses: string;
  /** one character per result: t, f, or n (no verdict) */
  verdicts: string;
  scores: string;
  durations: string;
  costs: string;
}

/**
 * A run's rows per target and evaluation results per target and evaluator, as one list per
 * column: one scan of each table, no sort beyond grouping (the lists of a group are aligned, as
 * every aggregate of a group reads the same rows in the same order). Counts, the values behind
 * each interval and the pairs of two runs are computed from them (run-values.ts).
 */
export async function runValueLists(db: Executor, experimentId: string, runId: string): Promise<{ rows: TargetRowLists[]; evaluators: EvaluatorResultLists[] }> {
  const [rowLists, evaluatorLists] = await Promise.all([
    rows<TargetRowLists>(
      db,
      sql`SELECT target_id AS "targetId", string_agg(idx::text, ',') AS idx,
            string_agg(CASE WHEN error IS NULL THEN '0' ELSE '1' END, '') AS errors,
            string_agg(COALESCE(duration::text, ''), ',') AS durations,
            string_agg(COALESCE(cost::text, ''), ',') AS costs
          FROM experiment_results WHERE experiment_id = ${experimentId} AND run_id = ${runId}
          GROUP BY target_id`,
    ),
    rows<EvaluatorResultLists>(
      db,
      sql`SELECT target_id AS "targetId", evaluator,
            max(name) FILTER (WHERE status = 'processed') AS "processedName", max(name) AS "anyName",
            string_agg(idx::text, ',') AS idx,
            string_agg(CASE status WHEN 'processed' THEN 'p' WHEN 'error' THEN 'e' ELSE 's' END, '') AS statuses,
            string_agg(CASE WHEN passed THEN 't' WHEN NOT passed THEN 'f' ELSE 'n' END, '') AS verdicts,
            string_agg(COALESCE(score::text, ''), ',') AS scores,
            string_agg(COALESCE(duration::text, ''), ',') AS durations,
            string_agg(COALESCE(cost::text, ''), ',') AS costs
          FROM experiment_evaluations WHERE experiment_id = ${experimentId} AND run_id = ${runId}
          GROUP BY target_id, evaluator`,
    ),
  ]);
  return { rows: rowLists, evaluators: evaluatorLists };
}

// ---- rows ----

/** A result row as stored, with the run it belongs to. */
export type StoredRow = ResultRowIn & { runId: string };

/** An evaluation as stored (without the inputs it was given), with its run. */
export type StoredEvaluation = Omit<EvaluationIn, 'inputs'> & { runId: string };

/** A column of a run's rows table: a result-row column, or one evaluator's score, passed, label or status. */
export type RowColumn =
  | { kind: 'row'; column: 'idx' | 'target_id' | 'cost' | 'duration' | 'error' }
  /** A dataset column of the row (`entry.<key>`) or the target's output, as text. */
  | { kind: 'json'; source: 'entry'; key: string }
  | { kind: 'json'; source: 'output' }
  | { kind: 'evaluation'; column: 'score' | 'passed' | 'label' | 'status'; evaluator: string };

export interface RowCondition {
  column: RowColumn;
  op: '=' | '!=' | '>' | '>=' | '<' | '<=' | '~';
  /** null: IS NULL / IS NOT NULL */
  value: string | number | boolean | null;
}

export interface RowQuery {
  where: RowCondition[];
  sortBy: RowColumn;
  descending: boolean;
  limit: number;
  offset: number;
}

/** One page of a run's rows, filtered and sorted by any column, with the number of rows that match. */
export async function pageRows(db: Executor, experimentId: string, runId: string, q: RowQuery): Promise<{ rows: StoredRow[]; total: number }> {
  const evaluators = [...new Set([q.sortBy, ...q.where.map((w) => w.column)].flatMap((c) => (c.kind === 'evaluation' ? [c.evaluator] : [])))];
  const alias = (evaluator: string) => sql.raw(`e${evaluators.indexOf(evaluator)}`);
  // LATERAL with LIMIT 1 (so the planner keeps it a lookup): each row's evaluation is one
  // primary-key probe. As a plain join, a planner with no statistics yet (a run just written)
  // scanned all of the evaluator's rows once per result row: 25 s for 3,000 rows.
  const joins = sql.join(
    evaluators.map(
      (ev) => sql`LEFT JOIN LATERAL (SELECT e.score, e.passed, e.label, e.status FROM experiment_evaluations e
        WHERE e.experiment_id = r.experiment_id AND e.run_id = r.run_id AND e.idx = r.idx AND e.target_id = r.target_id AND e.repetition = r.repetition
          AND e.evaluator = ${ev} LIMIT 1) ${alias(ev)} ON true`,
    ),
    sql` `,
  );
  const ref = (c: RowColumn): SQL =>
    c.kind === 'row'
      ? sql.raw(`r.${c.column}`)
      : c.kind === 'json'
        ? c.source === 'entry'
          ? sql`(r.entry ->> ${c.key})`
          : sql`(r.predicted ->> 'output')`
        : sql`${alias(c.evaluator)}.${sql.raw(c.column)}`;
  const conditions = q.where.map((w) => {
    const col = ref(w.column);
    // "no target" is stored as '': compare it as null, as it reads
    const value = w.column.kind === 'row' && w.column.column === 'target_id' && w.value === null ? '' : w.value;
    const target = w.column.kind === 'row' && w.column.column === 'target_id';
    if (value === null) return w.op === '=' ? sql`${col} IS NULL` : sql`${col} IS NOT NULL`;
    if (target && value === '') return w.op === '=' ? sql`${col} = ''` : sql`${col} <> ''`;
    if (w.op === '~') return sql`strpos(lower(${col}), lower(${String(value)})) > 0`;
    const typed = typeof value === 'number' ? sql`${value}::float8` : typeof value === 'boolean' ? sql`${value}::boolean` : sql`${value}::text`;
    if (w.op === '!=') return sql`${col} IS DISTINCT FROM ${typed}`;
    return sql`${col} ${sql.raw(w.op)} ${typed}`;
  });
  const whereSql = conditions.length ? sql` AND ${sql.join(conditions, sql` AND `)}` : sql``;
  const direction = sql.raw(q.descending ? 'DESC NULLS LAST' : 'ASC NULLS LAST');
  const base = sql`FROM experiment_results r ${joins} WHERE r.experiment_id = ${experimentId} AND r.run_id = ${runId}${whereSql}`;
  const page = await rows<StoredRow>(
    db,
    sql`SELECT r.run_id AS "runId", r.idx, r.target_id AS "targetId", r.repetition, r.entry, r.predicted, r.cost, r.duration, r.error, r.trace_id AS "traceId"
        ${base} ORDER BY ${ref(q.sortBy)} ${direction}, r.idx, r.target_id, r.repetition LIMIT ${q.limit} OFFSET ${q.offset}`,
  );
  const [count] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n ${base}`);
  return { rows: page, total: count.n };
}

/** Every evaluator a run's results name, with a display name. */
export async function evaluatorNames(db: Executor, experimentId: string, runIds: string[]): Promise<{ evaluator: string; name: string | null }[]> {
  return rows(
    db,
    sql`SELECT evaluator, max(name) AS name FROM experiment_evaluations
        WHERE experiment_id = ${experimentId} AND run_id = ANY(${textArray(runIds)}) GROUP BY evaluator ORDER BY evaluator`,
  );
}

type Key = { idx: number; targetId: string };

/** The evaluation results of `runIds` on the given row keys (every repetition, the first first). */
export async function evaluationsOf(db: Executor, experimentId: string, runIds: string[], keys: Key[]): Promise<StoredEvaluation[]> {
  if (!keys.length) return [];
  return rows<StoredEvaluation>(
    db,
    sql`SELECT e.run_id AS "runId", e.idx, e.target_id AS "targetId", e.repetition, e.evaluator, e.name, e.status, e.score, e.label, e.passed, e.details, e.cost, e.duration
        FROM experiment_evaluations e
        JOIN json_to_recordset(${jsonParam(keys.map((k) => ({ idx: k.idx, targetId: k.targetId })))}::json) AS k("idx" int, "targetId" text) ON e.idx = k."idx" AND e.target_id = k."targetId"
        WHERE e.experiment_id = ${experimentId} AND e.run_id = ANY(${textArray(runIds)}) ORDER BY e.repetition`,
  );
}

/** The result rows of `runIds` on the given row keys (every repetition, the first first). */
export async function rowsOf(db: Executor, experimentId: string, runIds: string[], keys: Key[]): Promise<StoredRow[]> {
  if (!keys.length) return [];
  return rows<StoredRow>(
    db,
    sql`SELECT r.run_id AS "runId", r.idx, r.target_id AS "targetId", r.repetition, r.entry, r.predicted, r.cost, r.duration, r.error, r.trace_id AS "traceId"
        FROM experiment_results r
        JOIN json_to_recordset(${jsonParam(keys)}::json) AS k("idx" int, "targetId" text) ON r.idx = k."idx" AND r.target_id = k."targetId"
        WHERE r.experiment_id = ${experimentId} AND r.run_id = ANY(${textArray(runIds)}) ORDER BY r.repetition`,
  );
}

/** A page of the row keys any of `runIds` holds, by index then target. */
export async function pageKeys(
  db: Executor,
  experimentId: string,
  runIds: string[],
  targetId: string | null,
  limit: number,
  offset: number,
): Promise<{ keys: Key[]; total: number }> {
  const byTarget = targetId === null ? sql`` : sql` AND target_id = ${targetId}`;
  const base = sql`FROM (SELECT DISTINCT idx, target_id FROM experiment_results
                         WHERE experiment_id = ${experimentId} AND run_id = ANY(${textArray(runIds)})${byTarget}) k`;
  const keys = await rows<Key>(db, sql`SELECT idx, target_id AS "targetId" ${base} ORDER BY idx, target_id LIMIT ${limit} OFFSET ${offset}`);
  const [count] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n ${base}`);
  return { keys, total: count.n };
}

/** A processed evaluation result of a run, one try of its row. */
export interface TryResult {
  runId: string;
  evaluator: string;
  targetId: string;
  idx: number;
  repetition: number;
  score: number | null;
  passed: boolean | null;
}

/**
 * The processed results of `runIds` by try, when any of them repeated a row (else none: a
 * comparison without repetitions pairs results as they are). Ordered by row and try.
 */
export async function repeatedTries(db: Executor, experimentId: string, runIds: string[]): Promise<TryResult[]> {
  const [any] = await rows<{ repeated: boolean }>(
    db,
    sql`SELECT EXISTS (SELECT 1 FROM experiment_results WHERE experiment_id = ${experimentId} AND run_id = ANY(${textArray(runIds)}) AND repetition > 0) AS repeated`,
  );
  if (!any.repeated) return [];
  return rows<TryResult>(
    db,
    sql`SELECT run_id AS "runId", evaluator, target_id AS "targetId", idx, repetition, score, passed
        FROM experiment_evaluations
        WHERE experiment_id = ${experimentId} AND run_id = ANY(${textArray(runIds)}) AND status = 'processed'
        ORDER BY idx, target_id, repetition`,
  );
}

/** Row keys (index, target) both runs hold, a repeated row counted once. */
export async function sharedRowKeys(db: Executor, experimentId: string, baseRunId: string, runId: string): Promise<number> {
  const [row] = await rows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM (
          SELECT idx, target_id FROM experiment_results WHERE experiment_id = ${experimentId} AND run_id = ${baseRunId}
          INTERSECT
          SELECT idx, target_id FROM experiment_results WHERE experiment_id = ${experimentId} AND run_id = ${runId}) k`,
  );
  return row.n;
}
