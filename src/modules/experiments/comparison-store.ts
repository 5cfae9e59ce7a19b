import { sql, type SQL } from 'drizzle-orm';
import { jsonParam, rows, textArray, type Executor } from '../../db/index.ts';
import type { EvaluationIn, ResultRowIn, StoredTarget } from './store.ts';

/**
 * SQL for reading and comparing runs. Aggregation happens here: one GROUP BY (GROUPING SETS for
 * per-target and overall at once) per table and run, answering counts and the values the
 * intervals need as one comma-separated string per group (string_agg), not one row per result.
 * Every query starts from an experiment id found through the project.
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
    sql`SELECT run_id AS "runId", created_at::float8 AS "createdAt", finished_at::float8 AS "finishedAt", stopped_at::float8 AS "stoppedAt", targets
        FROM experiment_runs WHERE experiment_id = ${experimentId} AND run_id = ANY(${textArray(runIds)})`,
  );
}

export interface RowGroupValues {
  /** 1 for the overall group */
  all: number;
  targetId: string | null;
  rows: number;
  errors: number;
  /** ascending */
  durations: string | null;
  costs: string | null;
}

export interface EvaluatorGroupValues {
  all: number;
  targetId: string | null;
  evaluator: string;
  name: string | null;
  results: number;
  processed: number;
  skipped: number;
  errors: number;
  passed: number;
  failed: number;
  ratePassed: number;
  rateN: number;
  scores: string | null;
  /** ascending */
  durations: string | null;
  costs: string | null;
}

const groupingSets = (perTarget: boolean, inner: string) => sql.raw(perTarget ? `GROUPING SETS ((target_id${inner}), (${inner.replace(/^, /, '')}))` : `GROUPING SETS ((${inner.replace(/^, /, '')}))`);

/** A run's rows and evaluation results grouped overall (and per target when `perTarget`). */
export async function runGroupValues(
  db: Executor,
  experimentId: string,
  runId: string,
  perTarget: boolean,
): Promise<{ rows: RowGroupValues[]; evaluators: EvaluatorGroupValues[] }> {
  const all = perTarget ? sql.raw('GROUPING(target_id)::int') : sql.raw('1');
  const target = perTarget ? sql.raw('target_id') : sql.raw('NULL::text');
  // Both at once (on PostgreSQL, two connections).
  const [rowGroups, evaluatorGroups] = await Promise.all([
    rows<RowGroupValues>(
      db,
      sql`SELECT ${all} AS "all", ${target} AS "targetId", count(*)::int AS rows, count(error)::int AS errors,
            string_agg(duration::text, ',' ORDER BY duration) FILTER (WHERE duration IS NOT NULL) AS durations,
            string_agg(cost::text, ',' ORDER BY idx, target_id) FILTER (WHERE cost IS NOT NULL) AS costs
          FROM experiment_results WHERE experiment_id = ${experimentId} AND run_id = ${runId}
          GROUP BY ${perTarget ? sql.raw('GROUPING SETS ((target_id), ())') : sql.raw('()')}`,
    ),
    rows<EvaluatorGroupValues>(
      db,
      sql`SELECT ${all} AS "all", ${target} AS "targetId", evaluator,
            COALESCE(max(name) FILTER (WHERE status = 'processed'), max(name)) AS name,
            count(*)::int AS results,
            count(*) FILTER (WHERE status = 'processed')::int AS processed,
            count(*) FILTER (WHERE status = 'skipped')::int AS skipped,
            count(*) FILTER (WHERE status = 'error')::int AS errors,
            count(*) FILTER (WHERE passed IS TRUE)::int AS passed,
            count(*) FILTER (WHERE passed IS FALSE OR status = 'error')::int AS failed,
            count(*) FILTER (WHERE status = 'processed' AND passed IS TRUE)::int AS "ratePassed",
            count(*) FILTER (WHERE status = 'processed' AND passed IS NOT NULL)::int AS "rateN",
            string_agg(score::text, ',' ORDER BY idx, target_id) FILTER (WHERE status = 'processed' AND score IS NOT NULL) AS scores,
            string_agg(duration::text, ',' ORDER BY duration) FILTER (WHERE duration IS NOT NULL) AS durations,
            string_agg(cost::text, ',' ORDER BY idx, target_id) FILTER (WHERE cost IS NOT NULL) AS costs
          FROM experiment_evaluations WHERE experiment_id = ${experimentId} AND run_id = ${runId}
          GROUP BY ${groupingSets(perTarget, ', evaluator')}
          ORDER BY evaluator`,
    ),
  ]);
  return { rows: rowGroups, evaluators: evaluatorGroups };
}

export interface PairedEvaluator {
  evaluator: string;
  name: string | null;
  scoreN: number;
  baseScore: number | null;
  curScore: number | null;
  scoreDiffs: string | null;
  passN: number;
  basePassed: number;
  curPassed: number;
  passMinus: number;
  passPlus: number;
  regressions: number;
  improvements: number;
}

/**
 * The two runs' results per key (evaluator, index, target) in one scan and one GROUP BY, not a
 * join: the planner never has to guess the size of a freshly written run (stale statistics made
 * a nested loop over two 10,000-row runs take minutes). Each key has at most one result per run.
 */
const pairs = (experimentId: string, baseRunId: string, runId: string) => sql`
  SELECT evaluator, idx, target_id,
    bool_or(run_id = ${baseRunId}) AS has_a, bool_or(run_id = ${runId}) AS has_b,
    max(name) FILTER (WHERE run_id = ${baseRunId}) AS a_name, max(name) FILTER (WHERE run_id = ${runId}) AS b_name,
    max(score) FILTER (WHERE run_id = ${baseRunId} AND status = 'processed') AS a_score,
    max(score) FILTER (WHERE run_id = ${runId} AND status = 'processed') AS b_score,
    bool_or(passed) FILTER (WHERE run_id = ${baseRunId} AND status = 'processed') AS a_judged,
    bool_or(passed) FILTER (WHERE run_id = ${runId} AND status = 'processed') AS b_judged,
    bool_or(passed) FILTER (WHERE run_id = ${baseRunId}) AS a_passed,
    bool_or(passed) FILTER (WHERE run_id = ${runId}) AS b_passed,
    bool_or(status = 'error') FILTER (WHERE run_id = ${baseRunId}) AS a_error,
    bool_or(status = 'error') FILTER (WHERE run_id = ${runId}) AS b_error
  FROM experiment_evaluations
  WHERE experiment_id = ${experimentId} AND run_id IN (${baseRunId}, ${runId})
  GROUP BY evaluator, idx, target_id`;

const REGRESSED = sql.raw(`a_passed IS TRUE AND (b_passed IS FALSE OR b_error)`);
const IMPROVED = sql.raw(`(a_passed IS FALSE OR a_error) AND b_passed IS TRUE`);

/** Per evaluator, the results both runs hold for the same (index, target): paired values and flips. */
export async function pairedEvaluators(db: Executor, experimentId: string, baseRunId: string, runId: string): Promise<{ shared: number; evaluators: PairedEvaluator[] }> {
  const scored = sql.raw(`a_score IS NOT NULL AND b_score IS NOT NULL`);
  const judged = sql.raw(`a_judged IS NOT NULL AND b_judged IS NOT NULL`);
  const evaluators = await rows<PairedEvaluator>(
    db,
    sql`SELECT evaluator, COALESCE(max(b_name), max(a_name)) AS name,
          count(*) FILTER (WHERE ${scored})::int AS "scoreN",
          avg(a_score) FILTER (WHERE ${scored})::float8 AS "baseScore",
          avg(b_score) FILTER (WHERE ${scored})::float8 AS "curScore",
          string_agg((b_score - a_score)::text, ',' ORDER BY idx, target_id) FILTER (WHERE ${scored}) AS "scoreDiffs",
          count(*) FILTER (WHERE ${judged})::int AS "passN",
          count(*) FILTER (WHERE ${judged} AND a_judged)::int AS "basePassed",
          count(*) FILTER (WHERE ${judged} AND b_judged)::int AS "curPassed",
          count(*) FILTER (WHERE ${judged} AND a_judged AND NOT b_judged)::int AS "passMinus",
          count(*) FILTER (WHERE ${judged} AND b_judged AND NOT a_judged)::int AS "passPlus",
          count(*) FILTER (WHERE ${REGRESSED})::int AS regressions,
          count(*) FILTER (WHERE ${IMPROVED})::int AS improvements
        FROM (${pairs(experimentId, baseRunId, runId)}) p
        WHERE has_a AND has_b
        GROUP BY evaluator ORDER BY evaluator`,
  );
  const [shared] = await rows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM (
          SELECT 1 FROM experiment_results WHERE experiment_id = ${experimentId} AND run_id IN (${baseRunId}, ${runId})
          GROUP BY idx, target_id HAVING count(*) = 2) k`,
  );
  return { shared: shared.n, evaluators };
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
        WHERE e.experiment_id = r.experiment_id AND e.run_id = r.run_id AND e.idx = r.idx AND e.target_id = r.target_id AND e.evaluator = ${ev} LIMIT 1) ${alias(ev)} ON true`,
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
    sql`SELECT r.run_id AS "runId", r.idx, r.target_id AS "targetId", r.entry, r.predicted, r.cost, r.duration, r.error, r.trace_id AS "traceId"
        ${base} ORDER BY ${ref(q.sortBy)} ${direction}, r.idx, r.target_id LIMIT ${q.limit} OFFSET ${q.offset}`,
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

/** The evaluation results of `runIds` on the given row keys. */
export async function evaluationsOf(db: Executor, experimentId: string, runIds: string[], keys: Key[]): Promise<StoredEvaluation[]> {
  if (!keys.length) return [];
  return rows<StoredEvaluation>(
    db,
    sql`SELECT e.run_id AS "runId", e.idx, e.target_id AS "targetId", e.evaluator, e.name, e.status, e.score, e.label, e.passed, e.details, e.cost, e.duration
        FROM experiment_evaluations e
        JOIN json_to_recordset(${jsonParam(keys)}::json) AS k("idx" int, "targetId" text) ON e.idx = k."idx" AND e.target_id = k."targetId"
        WHERE e.experiment_id = ${experimentId} AND e.run_id = ANY(${textArray(runIds)})`,
  );
}

/** The result rows of `runIds` on the given row keys. */
export async function rowsOf(db: Executor, experimentId: string, runIds: string[], keys: Key[]): Promise<StoredRow[]> {
  if (!keys.length) return [];
  return rows<StoredRow>(
    db,
    sql`SELECT r.run_id AS "runId", r.idx, r.target_id AS "targetId", r.entry, r.predicted, r.cost, r.duration, r.error, r.trace_id AS "traceId"
        FROM experiment_results r
        JOIN json_to_recordset(${jsonParam(keys)}::json) AS k("idx" int, "targetId" text) ON r.idx = k."idx" AND r.target_id = k."targetId"
        WHERE r.experiment_id = ${experimentId} AND r.run_id = ANY(${textArray(runIds)})`,
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

export interface Flip {
  idx: number;
  targetId: string;
  evaluator: string;
  direction: 'regressed' | 'improved';
}

/** Results that passed in the baseline and fail (or error) now, and the reverse: counts per evaluator and one page. */
export async function flips(
  db: Executor,
  experimentId: string,
  baseRunId: string,
  runId: string,
  filter: { evaluator: string | null; direction: 'regressed' | 'improved' | null; limit: number; offset: number },
): Promise<{ counts: { evaluator: string; name: string | null; regressed: number; improved: number }[]; page: Flip[]; total: number }> {
  const from = sql`FROM (${pairs(experimentId, baseRunId, runId)}) p WHERE has_a AND has_b`;
  const counts = await rows<{ evaluator: string; name: string | null; regressed: number; improved: number }>(
    db,
    sql`SELECT evaluator, COALESCE(max(b_name), max(a_name)) AS name,
          count(*) FILTER (WHERE ${REGRESSED})::int AS regressed, count(*) FILTER (WHERE ${IMPROVED})::int AS improved
        ${from} GROUP BY evaluator ORDER BY evaluator`,
  );
  const kinds = filter.direction === 'regressed' ? REGRESSED : filter.direction === 'improved' ? IMPROVED : sql`(${REGRESSED}) OR (${IMPROVED})`;
  const byEvaluator = filter.evaluator === null ? sql`` : sql` AND evaluator = ${filter.evaluator}`;
  const page = await rows<Flip>(
    db,
    sql`SELECT idx, target_id AS "targetId", evaluator, CASE WHEN ${REGRESSED} THEN 'regressed' ELSE 'improved' END AS direction
        ${from}${byEvaluator} AND (${kinds})
        ORDER BY (${REGRESSED}) DESC, idx, target_id, evaluator LIMIT ${filter.limit} OFFSET ${filter.offset}`,
  );
  const [count] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n ${from}${byEvaluator} AND (${kinds})`);
  return { counts, page, total: count.n };
}
