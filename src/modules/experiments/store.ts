import { sql, type SQL } from 'drizzle-orm';
import { jsonParam, rows, type Executor, textArray } from '../../db/index.ts';
import type { SealedHeaders } from './target-headers.ts';

/**
 * SQL of the experiments module. Every query names the project or an experiment id found
 * through the project. Result rows and evaluations are written with one INSERT ... ON
 * CONFLICT per post (cost proportional to the rows posted); aggregates are GROUP BY queries
 * over one run's keys (the primary key's prefix).
 */

export interface ExperimentRow {
  id: string;
  projectId: string;
  slug: string;
  name: string | null;
  type: string;
  workflowId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface RunRow {
  experimentId: string;
  runId: string;
  projectId: string;
  workflowVersionId: string | null;
  targets: StoredTarget[];
  progress: number;
  total: number;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  stoppedAt: number | null;
  name: string | null;
  /** started by the platform (its id is generated), not logged by an SDK (whose id is the caller's) */
  byPlatform: boolean;
}

export interface StoredTarget {
  id: string;
  name: string;
  type: string;
  promptId: string | null;
  promptVersion: number | null;
  agentId: string | null;
  evaluatorId: string | null;
  model: string | null;
  metadata: Record<string, string | number | boolean> | null;
}

export interface ResultRowIn {
  idx: number;
  targetId: string;
  /** which of the row's repetitions (0 for the first, and for results logged without one) */
  repetition: number;
  entry: Record<string, unknown>;
  predicted: Record<string, unknown> | null;
  cost: number | null;
  duration: number | null;
  error: string | null;
  traceId: string | null;
}

export interface EvaluationIn {
  idx: number;
  targetId: string;
  repetition: number;
  evaluator: string;
  name: string | null;
  status: string;
  score: number | null;
  label: string | null;
  passed: boolean | null;
  details: string | null;
  cost: number | null;
  duration: number | null;
  inputs: Record<string, unknown> | null;
}

const EXPERIMENT_COLUMNS = sql.raw(`id, project_id AS "projectId", slug, name, type, workflow_id AS "workflowId",
  created_at AS "createdAt", updated_at AS "updatedAt"`);
const RUN_COLUMNS = sql.raw(`r.experiment_id AS "experimentId", r.run_id AS "runId", r.project_id AS "projectId",
  r.workflow_version_id AS "workflowVersionId", r.targets, r.progress, r.total,
  r.created_at::float8 AS "createdAt", r.updated_at::float8 AS "updatedAt",
  r.finished_at::float8 AS "finishedAt", r.stopped_at::float8 AS "stoppedAt", r.name,
  EXISTS (SELECT 1 FROM experiment_platform_runs pr WHERE pr.experiment_id = r.experiment_id AND pr.run_id = r.run_id) AS "byPlatform"`);

const fixDates = (r: ExperimentRow): ExperimentRow => ({ ...r, createdAt: new Date(r.createdAt), updatedAt: new Date(r.updatedAt) });

/** Finds or creates the experiment of a slug. `rename`/`workflowId`, when given, replace the stored ones. */
export async function upsertExperiment(
  db: Executor,
  e: { id: string; projectId: string; slug: string; nameOnCreate: string; rename: string | null; type: string; workflowId: string | null; now: Date },
): Promise<ExperimentRow> {
  const [row] = await rows<ExperimentRow>(
    db,
    sql`INSERT INTO experiments (id, project_id, slug, name, type, workflow_id, created_at, updated_at)
        VALUES (${e.id}, ${e.projectId}, ${e.slug}, ${e.rename ?? e.nameOnCreate}, ${e.type}, ${e.workflowId}, ${e.now}, ${e.now})
        ON CONFLICT (project_id, slug) DO UPDATE SET
          name = COALESCE(${e.rename}::text, experiments.name),
          workflow_id = COALESCE(${e.workflowId}::text, experiments.workflow_id),
          updated_at = excluded.updated_at
        RETURNING ${EXPERIMENT_COLUMNS}`,
  );
  return fixDates(row);
}

/** An existing experiment by id; `rename`/`workflowId` replace the stored ones when given. */
export async function touchExperimentById(
  db: Executor,
  projectId: string,
  id: string,
  change: { rename: string | null; workflowId: string | null; now: Date },
): Promise<ExperimentRow | null> {
  const [row] = await rows<ExperimentRow>(
    db,
    sql`UPDATE experiments SET
          name = COALESCE(${change.rename}::text, name),
          workflow_id = COALESCE(${change.workflowId}::text, workflow_id),
          updated_at = ${change.now}
        WHERE project_id = ${projectId} AND id = ${id}
        RETURNING ${EXPERIMENT_COLUMNS}`,
  );
  return row ? fixDates(row) : null;
}

export async function findExperimentBySlug(db: Executor, projectId: string, slug: string): Promise<ExperimentRow | null> {
  const [row] = await rows<ExperimentRow>(db, sql`SELECT ${EXPERIMENT_COLUMNS} FROM experiments WHERE project_id = ${projectId} AND slug = ${slug}`);
  return row ? fixDates(row) : null;
}

export async function listExperiments(
  db: Executor,
  projectId: string,
  limit: number,
  offset: number,
  datasetId: string | null = null,
): Promise<{ items: (ExperimentRow & { runsCount: number; lastRunAt: number | null })[]; total: number }> {
  const onDataset =
    datasetId === null ? sql`TRUE` : sql`EXISTS (SELECT 1 FROM experiment_definitions d WHERE d.experiment_id = e.id AND d.project_id = ${projectId} AND d.definition->'dataset'->>'id' = ${datasetId})`;
  const items = await rows<ExperimentRow & { runsCount: number; lastRunAt: number | null }>(
    db,
    sql`SELECT ${EXPERIMENT_COLUMNS}, s.runs_count AS "runsCount", s.last_run_at AS "lastRunAt"
        FROM experiments e
        CROSS JOIN LATERAL (
          SELECT count(*)::int AS runs_count, max(created_at)::float8 AS last_run_at FROM experiment_runs r WHERE r.experiment_id = e.id
        ) s
        WHERE e.project_id = ${projectId} AND ${onDataset}
        ORDER BY e.updated_at DESC, e.id DESC
        LIMIT ${limit} OFFSET ${offset}`,
  );
  const [count] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM experiments e WHERE e.project_id = ${projectId} AND ${onDataset}`);
  return { items: items.map((i) => ({ ...fixDates(i), runsCount: i.runsCount, lastRunAt: i.lastRunAt })), total: count.n };
}

/** Creates the run unless it exists; answers whether it did, and the run locked for this transaction. */
export async function lockRun(
  db: Executor,
  r: { experimentId: string; runId: string; projectId: string; createdAt: number; now: number },
): Promise<{ created: boolean; run: RunRow }> {
  const inserted = await rows<{ runId: string }>(
    db,
    sql`INSERT INTO experiment_runs (experiment_id, run_id, project_id, created_at, updated_at)
        VALUES (${r.experimentId}, ${r.runId}, ${r.projectId}, ${r.createdAt}, ${r.now})
        ON CONFLICT (experiment_id, run_id) DO NOTHING
        RETURNING run_id AS "runId"`,
  );
  const [run] = await rows<RunRow>(
    db,
    sql`SELECT ${RUN_COLUMNS} FROM experiment_runs r WHERE r.experiment_id = ${r.experimentId} AND r.run_id = ${r.runId} FOR UPDATE`,
  );
  return { created: inserted.length > 0, run };
}

/** Upserts result rows (keys unique within `items`); answers how many keys were new to the run. */
export async function upsertResults(db: Executor, experimentId: string, runId: string, items: ResultRowIn[]): Promise<number> {
  if (!items.length) return 0;
  const out = await rows<{ inserted: boolean }>(
    db,
    sql`INSERT INTO experiment_results AS t (experiment_id, run_id, idx, target_id, repetition, entry, predicted, cost, duration, error, trace_id)
        SELECT ${experimentId}, ${runId}, x."idx", x."targetId", x."repetition", x."entry", x."predicted", x."cost", x."duration", x."error", x."traceId"
        FROM json_to_recordset(${jsonParam(items)}::json)
          AS x("idx" int, "targetId" text, "repetition" int, "entry" json, "predicted" json, "cost" float8, "duration" float8, "error" text, "traceId" text)
        ON CONFLICT (experiment_id, run_id, idx, target_id, repetition) DO UPDATE SET
          entry = excluded.entry, predicted = excluded.predicted, cost = excluded.cost,
          duration = excluded.duration, error = excluded.error, trace_id = excluded.trace_id
        RETURNING (t.xmax = 0) AS inserted`,
  );
  return out.filter((o) => o.inserted).length;
}

export async function upsertEvaluations(db: Executor, experimentId: string, runId: string, items: EvaluationIn[]): Promise<void> {
  if (!items.length) return;
  await db.execute(
    sql`INSERT INTO experiment_evaluations (experiment_id, run_id, idx, target_id, repetition, evaluator, name, status, score, label, passed, details, cost, duration, inputs)
        SELECT ${experimentId}, ${runId}, x."idx", x."targetId", x."repetition", x."evaluator", x."name", x."status", x."score", x."label", x."passed",
               x."details", x."cost", x."duration", x."inputs"
        FROM json_to_recordset(${jsonParam(items)}::json)
          AS x("idx" int, "targetId" text, "repetition" int, "evaluator" text, "name" text, "status" text, "score" float8, "label" text, "passed" boolean,
               "details" text, "cost" float8, "duration" float8, "inputs" jsonb)
        ON CONFLICT (experiment_id, run_id, idx, target_id, evaluator, repetition) DO UPDATE SET
          name = excluded.name, status = excluded.status, score = excluded.score, label = excluded.label, passed = excluded.passed,
          details = excluded.details, cost = excluded.cost, duration = excluded.duration, inputs = excluded.inputs`,
  );
}

export async function saveRun(db: Executor, run: RunRow): Promise<void> {
  await db.execute(
    sql`UPDATE experiment_runs SET
          workflow_version_id = ${run.workflowVersionId}, targets = ${jsonParam(run.targets)}::jsonb, progress = ${run.progress},
          total = ${run.total}, updated_at = ${run.updatedAt}, finished_at = ${run.finishedAt}, stopped_at = ${run.stoppedAt},
          results_version = nextval('experiment_results_versions')
        WHERE experiment_id = ${run.experimentId} AND run_id = ${run.runId}`,
  );
}

export async function listRuns(db: Executor, experimentId: string, limit: number, offset: number): Promise<{ items: RunRow[]; total: number }> {
  const items = await rows<RunRow>(
    db,
    sql`SELECT ${RUN_COLUMNS} FROM experiment_runs r WHERE r.experiment_id = ${experimentId}
        ORDER BY r.created_at DESC, r.run_id DESC LIMIT ${limit} OFFSET ${offset}`,
  );
  const [count] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM experiment_runs WHERE experiment_id = ${experimentId}`);
  return { items, total: count.n };
}

/** Runs of the project with this run id (one experiment's, when a slug is given), with their experiment's slug. */
export async function findRuns(db: Executor, projectId: string, runId: string, experimentSlug: string | null): Promise<(RunRow & { slug: string })[]> {
  const bySlug: SQL = experimentSlug === null ? sql`` : sql`AND e.slug = ${experimentSlug}`;
  return rows<RunRow & { slug: string }>(
    db,
    sql`SELECT ${RUN_COLUMNS}, e.slug FROM experiment_runs r JOIN experiments e ON e.id = r.experiment_id
        WHERE r.project_id = ${projectId} AND r.run_id = ${runId} AND e.project_id = ${projectId} ${bySlug}
        LIMIT 2`,
  );
}

export interface DatasetAggregate {
  runId: string;
  rows: number;
  errors: number;
  costSum: number | null;
  costAvg: number | null;
  durationAvg: number | null;
}
export interface EvaluationAggregate {
  runId: string;
  costSum: number | null;
  costAvg: number | null;
  durationAvg: number | null;
}
export interface EvaluatorAggregate {
  runId: string;
  evaluator: string;
  name: string | null;
  averageScore: number | null;
  averagePassed: number | null;
  passed: number;
  failed: number;
  processed: number;
}
export interface TargetAggregate {
  targetId: string;
  durationAvg: number | null;
  costSum: number | null;
  passed: number;
  failed: number;
}

/** Per run of `runIds` (all of one experiment): the de-duplicated results' aggregates. */
export async function runAggregates(
  db: Executor,
  experimentId: string,
  runIds: string[],
): Promise<{ dataset: DatasetAggregate[]; evaluations: EvaluationAggregate[]; evaluators: EvaluatorAggregate[] }> {
  if (!runIds.length) return { dataset: [], evaluations: [], evaluators: [] };
  const ids = textArray(runIds);
  const dataset = await rows<DatasetAggregate>(
    db,
    sql`SELECT run_id AS "runId", count(*)::int AS rows, count(error)::int AS errors,
          sum(cost)::float8 AS "costSum", avg(cost)::float8 AS "costAvg", avg(duration)::float8 AS "durationAvg"
        FROM experiment_results WHERE experiment_id = ${experimentId}
          AND run_id = ANY(${ids}) GROUP BY run_id`,
  );
  const evaluations = await rows<EvaluationAggregate>(
    db,
    sql`SELECT run_id AS "runId", sum(cost)::float8 AS "costSum", avg(cost)::float8 AS "costAvg", avg(duration)::float8 AS "durationAvg"
        FROM experiment_evaluations WHERE experiment_id = ${experimentId}
          AND run_id = ANY(${ids}) GROUP BY run_id`,
  );
  const evaluators = await rows<EvaluatorAggregate>(
    db,
    sql`SELECT run_id AS "runId", evaluator, max(name) FILTER (WHERE status = 'processed') AS name,
          avg(score) FILTER (WHERE status = 'processed')::float8 AS "averageScore",
          avg(CASE WHEN passed THEN 1.0 ELSE 0.0 END) FILTER (WHERE status = 'processed' AND passed IS NOT NULL)::float8 AS "averagePassed",
          count(*) FILTER (WHERE passed IS TRUE)::int AS passed,
          count(*) FILTER (WHERE passed IS FALSE OR status = 'error')::int AS failed,
          count(*) FILTER (WHERE status = 'processed')::int AS processed
        FROM experiment_evaluations WHERE experiment_id = ${experimentId}
          AND run_id = ANY(${ids})
        GROUP BY run_id, evaluator ORDER BY evaluator`,
  );
  return { dataset, evaluations, evaluators };
}

/** Per target of one run (rows with a target only): mean duration, total cost, evaluations passed and failed. */
export async function targetAggregates(db: Executor, experimentId: string, runId: string): Promise<TargetAggregate[]> {
  return rows<TargetAggregate>(
    db,
    sql`SELECT d.target_id AS "targetId", d.duration_avg AS "durationAvg", d.cost_sum AS "costSum",
          COALESCE(v.passed, 0)::int AS passed, COALESCE(v.failed, 0)::int AS failed
        FROM (SELECT target_id, avg(duration)::float8 AS duration_avg, sum(cost)::float8 AS cost_sum
              FROM experiment_results WHERE experiment_id = ${experimentId} AND run_id = ${runId} AND target_id <> ''
              GROUP BY target_id) d
        LEFT JOIN (SELECT target_id, count(*) FILTER (WHERE passed IS TRUE) AS passed,
                     count(*) FILTER (WHERE passed IS FALSE OR status = 'error') AS failed
                   FROM experiment_evaluations WHERE experiment_id = ${experimentId} AND run_id = ${runId}
                   GROUP BY target_id) v ON v.target_id = d.target_id
        ORDER BY d.target_id`,
  );
}

export async function readResults(db: Executor, experimentId: string, runId: string): Promise<{ dataset: ResultRowIn[]; evaluations: EvaluationIn[] }> {
  const dataset = await rows<ResultRowIn>(
    db,
    sql`SELECT idx, target_id AS "targetId", repetition, entry, predicted, cost, duration, error, trace_id AS "traceId"
        FROM experiment_results WHERE experiment_id = ${experimentId} AND run_id = ${runId} ORDER BY idx, target_id, repetition`,
  );
  const evaluations = await rows<EvaluationIn>(
    db,
    sql`SELECT idx, target_id AS "targetId", repetition, evaluator, name, status, score, label, passed, details, cost, duration, inputs
        FROM experiment_evaluations WHERE experiment_id = ${experimentId} AND run_id = ${runId} ORDER BY idx, target_id, repetition, evaluator`,
  );
  return { dataset, evaluations };
}

// ---- Platform-run experiments ----

export interface DefinitionRow {
  experimentId: string;
  definition: Record<string, unknown>;
  updatedAt: Date;
}

/** Creates the EVALUATIONS_V3 experiment of a slug, or answers the one there (whatever its type). */
export async function insertPlatformExperiment(
  db: Executor,
  e: { id: string; projectId: string; slug: string; name: string | null; now: Date },
): Promise<ExperimentRow> {
  const [row] = await rows<ExperimentRow>(
    db,
    sql`INSERT INTO experiments (id, project_id, slug, name, type, created_at, updated_at)
        VALUES (${e.id}, ${e.projectId}, ${e.slug}, ${e.name}, 'EVALUATIONS_V3', ${e.now}, ${e.now})
        ON CONFLICT (project_id, slug) DO UPDATE SET
          name = CASE WHEN experiments.type = 'EVALUATIONS_V3' THEN COALESCE(${e.name}::text, experiments.name) ELSE experiments.name END,
          updated_at = CASE WHEN experiments.type = 'EVALUATIONS_V3' THEN excluded.updated_at ELSE experiments.updated_at END
        RETURNING ${EXPERIMENT_COLUMNS}`,
  );
  return fixDates(row);
}

export async function saveDefinition(db: Executor, d: { experimentId: string; projectId: string; definition: unknown; now: Date }): Promise<void> {
  await db.execute(
    sql`INSERT INTO experiment_definitions (experiment_id, project_id, definition, updated_at)
        VALUES (${d.experimentId}, ${d.projectId}, ${jsonParam(d.definition)}::jsonb, ${d.now})
        ON CONFLICT (experiment_id) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at`,
  );
}

export async function findDefinition(db: Executor, projectId: string, experimentId: string): Promise<DefinitionRow | null> {
  const [row] = await rows<DefinitionRow>(
    db,
    sql`SELECT experiment_id AS "experimentId", definition, updated_at AS "updatedAt" FROM experiment_definitions
        WHERE project_id = ${projectId} AND experiment_id = ${experimentId}`,
  );
  return row ? { ...row, updatedAt: new Date(row.updatedAt) } : null;
}

export interface PlatformRunRow {
  experimentId: string;
  runId: string;
  projectId: string;
  organizationId: string;
  status: 'running' | 'completed' | 'stopped' | 'failed';
  plan: Record<string, unknown>;
  error: string | null;
}

export async function insertPlatformRun(
  db: Executor,
  r: { experimentId: string; runId: string; projectId: string; organizationId: string; plan: unknown; rows: unknown[] },
): Promise<void> {
  await db.execute(
    sql`INSERT INTO experiment_platform_runs (experiment_id, run_id, project_id, organization_id, status, plan, rows)
        VALUES (${r.experimentId}, ${r.runId}, ${r.projectId}, ${r.organizationId}, 'running', ${jsonParam(r.plan)}::jsonb, ${jsonParam(r.rows)}::jsonb)`,
  );
}

const PLATFORM_COLUMNS = sql.raw(`experiment_id AS "experimentId", run_id AS "runId", project_id AS "projectId",
  organization_id AS "organizationId", status, plan, error`);

export async function findPlatformRun(db: Executor, experimentId: string, runId: string, forUpdate = false): Promise<PlatformRunRow | null> {
  const lock = forUpdate ? sql` FOR UPDATE` : sql``;
  const [row] = await rows<PlatformRunRow>(
    db,
    sql`SELECT ${PLATFORM_COLUMNS} FROM experiment_platform_runs WHERE experiment_id = ${experimentId} AND run_id = ${runId}${lock}`,
  );
  return row ?? null;
}

/** The custom evaluators' versions a platform run pinned (evaluator id to version); empty for other runs. */
export async function platformRunEvaluatorVersions(db: Executor, experimentId: string, runId: string): Promise<Map<string, number>> {
  const found = await rows<{ id: string; version: number | null }>(
    db,
    sql`SELECT e->>'id' AS id, (e->>'version')::int AS version
        FROM experiment_platform_runs, jsonb_array_elements(plan->'evaluators') AS e
        WHERE experiment_id = ${experimentId} AND run_id = ${runId}`,
  );
  return new Map(found.flatMap((f) => (f.version === null ? [] : [[f.id, f.version] as const])));
}

/** What each evaluator id of these platform runs ran: its catalogue path (or custom/<slug>) and pinned version, newest run first. */
export async function platformRunJudges(db: Executor, experimentId: string, runIds: string[]): Promise<{ runId: string; id: string; evaluator: string; version: number | null }[]> {
  if (!runIds.length) return [];
  return rows(
    db,
    sql`SELECT p.run_id AS "runId", e->>'id' AS id, e->>'evaluator' AS evaluator, (e->>'version')::int AS version
        FROM experiment_platform_runs p, jsonb_array_elements(p.plan->'evaluators') AS e
        WHERE p.experiment_id = ${experimentId} AND p.run_id = ANY(${textArray(runIds)})`,
  );
}

export async function platformRunStatus(db: Executor, experimentId: string, runId: string): Promise<string | null> {
  const [row] = await rows<{ status: string }>(db, sql`SELECT status FROM experiment_platform_runs WHERE experiment_id = ${experimentId} AND run_id = ${runId}`);
  return row?.status ?? null;
}

export async function platformRunRows(db: Executor, experimentId: string, runId: string): Promise<{ index: number; entry: Record<string, unknown> }[]> {
  const [row] = await rows<{ rows: { index: number; entry: Record<string, unknown> }[] }>(
    db,
    sql`SELECT rows FROM experiment_platform_runs WHERE experiment_id = ${experimentId} AND run_id = ${runId}`,
  );
  return row?.rows ?? [];
}

export async function setPlatformRunStatus(db: Executor, experimentId: string, runId: string, status: PlatformRunRow['status'], error: string | null = null): Promise<void> {
  await db.execute(sql`UPDATE experiment_platform_runs SET status = ${status}, error = ${error} WHERE experiment_id = ${experimentId} AND run_id = ${runId}`);
}

/** The cells (row index, target id, repetition) of a run that have their result row. */
export async function doneCells(db: Executor, experimentId: string, runId: string): Promise<{ idx: number; targetId: string; repetition: number }[]> {
  return rows<{ idx: number; targetId: string; repetition: number }>(
    db,
    sql`SELECT idx, target_id AS "targetId", repetition FROM experiment_results WHERE experiment_id = ${experimentId} AND run_id = ${runId}`,
  );
}

/** Stores one finished cell: its row and evaluations, once (a cell stored already is left as it is); answers whether it was new. */
export async function storeCell(db: Executor, experimentId: string, runId: string, row: ResultRowIn, evaluations: EvaluationIn[], now: number): Promise<boolean> {
  const inserted = await rows<{ idx: number }>(
    db,
    sql`INSERT INTO experiment_results (experiment_id, run_id, idx, target_id, repetition, entry, predicted, cost, duration, error, trace_id)
        VALUES (${experimentId}, ${runId}, ${row.idx}, ${row.targetId}, ${row.repetition}, ${jsonParam(row.entry)}::json, ${row.predicted === null ? null : jsonParam(row.predicted)}::json,
                ${row.cost}, ${row.duration}, ${row.error}, ${row.traceId})
        ON CONFLICT (experiment_id, run_id, idx, target_id, repetition) DO NOTHING
        RETURNING idx`,
  );
  if (!inserted.length) return false;
  await upsertEvaluations(db, experimentId, runId, evaluations);
  await db.execute(
    sql`UPDATE experiment_runs SET progress = progress + 1, updated_at = ${now}, results_version = nextval('experiment_results_versions')
        WHERE experiment_id = ${experimentId} AND run_id = ${runId}`,
  );
  return true;
}

/** Ends a run (finished or stopped) unless it ended already; answers the run when this call ended it. */
export async function endRun(db: Executor, experimentId: string, runId: string, how: { finishedAt?: number; stoppedAt?: number }, now: number): Promise<RunRow | null> {
  const [row] = await rows<RunRow>(
    db,
    sql`UPDATE experiment_runs r SET finished_at = ${how.finishedAt ?? null}, stopped_at = ${how.stoppedAt ?? null}, updated_at = ${now}
        WHERE r.experiment_id = ${experimentId} AND r.run_id = ${runId} AND r.finished_at IS NULL AND r.stopped_at IS NULL
        RETURNING ${RUN_COLUMNS}`,
  );
  return row ?? null;
}

/** Names a run (null: back to the name made from its targets); answers the run, null when there is none. */
export async function renameRun(db: Executor, experimentId: string, runId: string, name: string | null): Promise<RunRow | null> {
  const [row] = await rows<RunRow>(
    db,
    sql`UPDATE experiment_runs r SET name = ${name} WHERE r.experiment_id = ${experimentId} AND r.run_id = ${runId} RETURNING ${RUN_COLUMNS}`,
  );
  return row ?? null;
}

/** A platform run's run row, created with its targets and total when it starts. */
export async function createRun(db: Executor, r: { experimentId: string; runId: string; projectId: string; targets: StoredTarget[]; total: number; now: number }): Promise<void> {
  await db.execute(
    sql`INSERT INTO experiment_runs (experiment_id, run_id, project_id, targets, progress, total, created_at, updated_at)
        VALUES (${r.experimentId}, ${r.runId}, ${r.projectId}, ${jsonParam(r.targets)}::jsonb, 0, ${r.total}, ${r.now}, ${r.now})`,
  );
}

/**
 * Definitions and run plans whose targets hold sealed headers (target-headers.ts), locked for a
 * key rotation: `holder` names the row (a definition: its experiment; a run: its run id too).
 */
export async function sealedHeaderHolders(
  db: Executor,
): Promise<{ kind: 'definition' | 'plan'; experimentId: string; runId: string | null; doc: { targets?: { id: string; sealed_headers?: SealedHeaders }[] } }[]> {
  const definitions = await rows<{ experimentId: string; doc: Record<string, unknown> }>(
    db,
    sql`SELECT experiment_id AS "experimentId", definition AS doc FROM experiment_definitions
        WHERE jsonb_path_exists(definition, '$.targets[*].sealed_headers') FOR UPDATE`,
  );
  const plans = await rows<{ experimentId: string; runId: string; doc: Record<string, unknown> }>(
    db,
    sql`SELECT experiment_id AS "experimentId", run_id AS "runId", plan AS doc FROM experiment_platform_runs
        WHERE jsonb_path_exists(plan, '$.targets[*].sealed_headers') FOR UPDATE`,
  );
  return [...definitions.map((d) => ({ kind: 'definition' as const, runId: null, ...d })), ...plans.map((p) => ({ kind: 'plan' as const, ...p }))];
}

export async function replaceSealedHeaderHolder(db: Executor, kind: 'definition' | 'plan', experimentId: string, runId: string | null, doc: unknown): Promise<void> {
  if (kind === 'definition') await db.execute(sql`UPDATE experiment_definitions SET definition = ${jsonParam(doc)}::jsonb WHERE experiment_id = ${experimentId}`);
  else await db.execute(sql`UPDATE experiment_platform_runs SET plan = ${jsonParam(doc)}::jsonb WHERE experiment_id = ${experimentId} AND run_id = ${runId}`);
}

/** The trace ids of a run's rows, in row order (rows without a trace left out). */
export async function runTraceIds(db: Executor, experimentId: string, runId: string): Promise<string[]> {
  const found = await rows<{ trace_id: string }>(
    db,
    sql`SELECT DISTINCT ON (trace_id) trace_id, idx FROM experiment_results
        WHERE experiment_id = ${experimentId} AND run_id = ${runId} AND trace_id IS NOT NULL
        ORDER BY trace_id, idx`,
  );
  return found.map((r) => r.trace_id);
}

// ---- a judge's results on experiment rows (judge alignment pairs them with people's scores of the rows' traces) ----

/**
 * Which judge an evaluation of a row is: a server run's evaluator id names the catalogue path (or
 * custom/<slug>) and version in the run's plan; an SDK-logged one is its own name, at no version.
 */
const ROW_JUDGES = sql`
  SELECT e.experiment_id, e.run_id, e.idx, e.target_id, e.repetition, e.status, e.passed, e.score, e.label, e.details,
         coalesce(x->>'evaluator', e.evaluator) AS judge, (x->>'version')::int AS version
  FROM experiment_evaluations e
  LEFT JOIN experiment_platform_runs p ON p.experiment_id = e.experiment_id AND p.run_id = e.run_id
  LEFT JOIN LATERAL (SELECT y FROM jsonb_array_elements(p.plan->'evaluators') AS y WHERE y->>'id' = e.evaluator LIMIT 1) AS j(x) ON true`;

export interface RowJudgeResult {
  traceId: string;
  passed: boolean | null;
  score: number | null;
  label: string | null;
  details: string | null;
}

/** A judge's latest processed result per trace on the project's experiment rows that have a trace (at a version when given). */
export async function judgeResultsOnRows(db: Executor, projectId: string, judge: string, version: number | null): Promise<RowJudgeResult[]> {
  return rows<RowJudgeResult>(
    db,
    sql`SELECT DISTINCT ON (r.trace_id) r.trace_id AS "traceId", j.passed, j.score, j.label, j.details
        FROM (${ROW_JUDGES}) AS j
        JOIN experiment_runs ru ON ru.experiment_id = j.experiment_id AND ru.run_id = j.run_id
        JOIN experiment_results r ON r.experiment_id = j.experiment_id AND r.run_id = j.run_id AND r.idx = j.idx AND r.target_id = j.target_id AND r.repetition = j.repetition
        WHERE ru.project_id = ${projectId} AND j.status = 'processed' AND r.trace_id IS NOT NULL AND j.judge = ${judge}
          AND (${version}::int IS NULL OR j.version = ${version}::int)
        ORDER BY r.trace_id, ru.updated_at DESC, j.repetition DESC`,
  );
}

/** The judges with processed results on the project's experiment rows that have a trace: versions and result counts. */
export async function judgesOnRows(db: Executor, projectId: string): Promise<{ evaluator: string; version: number | null; results: number }[]> {
  return rows(
    db,
    sql`SELECT j.judge AS evaluator, j.version, count(*)::int AS results
        FROM (${ROW_JUDGES}) AS j
        JOIN experiment_runs ru ON ru.experiment_id = j.experiment_id AND ru.run_id = j.run_id
        JOIN experiment_results r ON r.experiment_id = j.experiment_id AND r.run_id = j.run_id AND r.idx = j.idx AND r.target_id = j.target_id AND r.repetition = j.repetition
        WHERE ru.project_id = ${projectId} AND j.status = 'processed' AND r.trace_id IS NOT NULL
        GROUP BY j.judge, j.version ORDER BY j.judge, j.version`,
  );
}
