/** The simulations module's SQL: the one table `simulation_runs` (migrations/0043_simulations.sql). */
import { sql } from 'drizzle-orm';
import { isUniqueViolation, jsonParam, rows, type Executor } from '../../db/index.ts';

export interface RunRow {
  project_id: string;
  scenario_run_id: string;
  organization_id: string;
  scenario_set_id: string;
  batch_run_id: string;
  scenario_id: string;
  name: string | null;
  description: string | null;
  metadata: Record<string, unknown>;
  status: string;
  verdict: string | null;
  reasoning: string | null;
  met_criteria: string[];
  unmet_criteria: string[];
  error: string | null;
  messages: unknown[];
  messages_at: number | null;
  trace_ids: string[];
  events: number;
  started_at: number;
  finished_at: number | null;
  updated_at: number;
}

/** Who reported a run: the key's scope and the ids every event carries. */
export interface RunKey {
  organizationId: string;
  projectId: string;
  scenarioRunId: string;
  scenarioSetId: string;
  batchRunId: string;
  scenarioId: string;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const SUMMARY = sql.raw(
  `scenario_run_id, scenario_id, scenario_set_id, batch_run_id, name, description, status, verdict, reasoning, met_criteria, unmet_criteria, error,
   jsonb_array_length(messages) AS message_count, trace_ids, started_at, finished_at, updated_at`,
);

export interface RunSummaryRow extends Omit<RunRow, 'project_id' | 'organization_id' | 'metadata' | 'messages' | 'messages_at' | 'events'> {
  message_count: number;
}

function toSummary(r: Record<string, unknown>): RunSummaryRow {
  return {
    ...(r as unknown as RunSummaryRow),
    message_count: Number(r.message_count),
    started_at: Number(r.started_at),
    finished_at: num(r.finished_at),
    updated_at: Number(r.updated_at),
  };
}

/**
 * The run's row, made on the first event whatever its type (events can arrive out of order),
 * with one more event counted; the count before this one, so the caller can refuse past the limit.
 */
export async function countEvent(tx: Executor, key: RunKey, at: number, now: number): Promise<number> {
  const [row] = await rows<{ events: number }>(
    tx,
    sql`INSERT INTO simulation_runs (project_id, scenario_run_id, organization_id, scenario_set_id, batch_run_id, scenario_id, status, events, started_at, updated_at)
        VALUES (${key.projectId}, ${key.scenarioRunId}, ${key.organizationId}, ${key.scenarioSetId}, ${key.batchRunId}, ${key.scenarioId}, 'IN_PROGRESS', 1, ${at}, ${now})
        ON CONFLICT (project_id, scenario_run_id) DO UPDATE SET events = simulation_runs.events + 1, updated_at = ${now},
          started_at = LEAST(simulation_runs.started_at, EXCLUDED.started_at)
        RETURNING events`,
  );
  return Number(row.events) - 1;
}

/** Takes back a counted event that was refused. */
export async function uncountEvent(tx: Executor, projectId: string, scenarioRunId: string): Promise<void> {
  await tx.execute(sql`UPDATE simulation_runs SET events = events - 1 WHERE project_id = ${projectId} AND scenario_run_id = ${scenarioRunId}`);
}

export async function recordStart(tx: Executor, projectId: string, scenarioRunId: string, start: { name: string | null; description: string | null; metadata: Record<string, unknown>; at: number }): Promise<void> {
  await tx.execute(
    sql`UPDATE simulation_runs SET name = ${start.name}, description = ${start.description}, metadata = ${jsonParam(start.metadata)}::jsonb, started_at = ${start.at}
        WHERE project_id = ${projectId} AND scenario_run_id = ${scenarioRunId}`,
  );
}

/** The conversation so far, unless a later snapshot is already stored (a late one never replaces it). */
export async function recordSnapshot(tx: Executor, projectId: string, scenarioRunId: string, messages: unknown[], traceIds: string[], at: number): Promise<void> {
  await tx.execute(
    sql`UPDATE simulation_runs SET messages = ${jsonParam(messages)}::jsonb, messages_at = ${at}, trace_ids = ${jsonParam(traceIds)}::jsonb
        WHERE project_id = ${projectId} AND scenario_run_id = ${scenarioRunId} AND (messages_at IS NULL OR messages_at <= ${at})`,
  );
}

export async function recordFinish(
  tx: Executor,
  projectId: string,
  scenarioRunId: string,
  end: { status: string; verdict: string | null; reasoning: string | null; met: string[]; unmet: string[]; error: string | null; at: number },
): Promise<void> {
  await tx.execute(
    sql`UPDATE simulation_runs SET status = ${end.status}, verdict = ${end.verdict}, reasoning = ${end.reasoning}, met_criteria = ${jsonParam(end.met)}::jsonb,
          unmet_criteria = ${jsonParam(end.unmet)}::jsonb, error = ${end.error}, finished_at = ${end.at}
        WHERE project_id = ${projectId} AND scenario_run_id = ${scenarioRunId}`,
  );
}

export async function archiveSet(db: Executor, projectId: string, scenarioSetId: string, at: number): Promise<number> {
  const archived = await rows(
    db,
    sql`UPDATE simulation_runs SET archived_at = ${at} WHERE project_id = ${projectId} AND scenario_set_id = ${scenarioSetId} AND archived_at IS NULL RETURNING scenario_run_id`,
  );
  return archived.length;
}

export interface CountsRow {
  runs: number;
  passed: number;
  failed: number;
  in_progress: number;
}

const COUNTS = sql.raw(
  `count(*)::int AS runs,
   count(*) FILTER (WHERE verdict = 'success')::int AS passed,
   count(*) FILTER (WHERE finished_at IS NOT NULL AND verdict IS DISTINCT FROM 'success')::int AS failed,
   count(*) FILTER (WHERE finished_at IS NULL)::int AS in_progress`,
);

export async function listSets(db: Executor, projectId: string): Promise<Array<CountsRow & { scenario_set_id: string; batches: number; last_run_at: number }>> {
  const found = await rows<Record<string, unknown>>(
    db,
    sql`SELECT scenario_set_id, count(DISTINCT batch_run_id)::int AS batches, ${COUNTS}, max(started_at) AS last_run_at
        FROM simulation_runs WHERE project_id = ${projectId} AND archived_at IS NULL
        GROUP BY scenario_set_id ORDER BY max(started_at) DESC, scenario_set_id`,
  );
  return found.map((r) => ({ ...(r as unknown as CountsRow & { scenario_set_id: string; batches: number }), last_run_at: Number(r.last_run_at) }));
}

export async function listBatches(
  db: Executor,
  projectId: string,
  scenarioSetId: string,
): Promise<Array<CountsRow & { batch_run_id: string; scenario_set_id: string; label: string | null; started_at: number; finished_at: number | null }>> {
  const found = await rows<Record<string, unknown>>(
    db,
    sql`SELECT batch_run_id, min(scenario_set_id) AS scenario_set_id, max(metadata->>'label') AS label, ${COUNTS}, min(started_at) AS started_at,
          CASE WHEN count(*) FILTER (WHERE finished_at IS NULL) = 0 THEN max(finished_at) END AS finished_at
        FROM simulation_runs WHERE project_id = ${projectId} AND scenario_set_id = ${scenarioSetId} AND archived_at IS NULL
        GROUP BY batch_run_id ORDER BY min(started_at) DESC, batch_run_id`,
  );
  return found.map((r) => ({
    ...(r as unknown as CountsRow & { batch_run_id: string; scenario_set_id: string }),
    label: (r.label as string | null) ?? null,
    started_at: Number(r.started_at),
    finished_at: num(r.finished_at),
  }));
}

export async function listBatchRuns(db: Executor, projectId: string, batchRunId: string, limit: number): Promise<RunSummaryRow[]> {
  const found = await rows<Record<string, unknown>>(
    db,
    sql`SELECT ${SUMMARY} FROM simulation_runs WHERE project_id = ${projectId} AND batch_run_id = ${batchRunId} AND archived_at IS NULL
        ORDER BY started_at, scenario_run_id LIMIT ${limit}`,
  );
  return found.map(toSummary);
}

export async function findRun(db: Executor, projectId: string, scenarioRunId: string): Promise<(RunSummaryRow & { metadata: Record<string, unknown>; messages: unknown[] }) | null> {
  const [r] = await rows<Record<string, unknown>>(
    db,
    sql`SELECT ${SUMMARY}, metadata, messages FROM simulation_runs WHERE project_id = ${projectId} AND scenario_run_id = ${scenarioRunId} AND archived_at IS NULL`,
  );
  return r ? { ...toSummary(r), metadata: r.metadata as Record<string, unknown>, messages: r.messages as unknown[] } : null;
}

export async function deleteProjectRuns(db: Executor, projectId: string): Promise<void> {
  await db.execute(sql`DELETE FROM simulation_runs WHERE project_id = ${projectId}`);
}

/* ---- Scenarios the server runs (migrations/0046_simulation_scenarios.sql) ---- */

export interface ScenarioRow {
  id: string;
  scenario_set_id: string;
  name: string;
  description: string;
  persona: string;
  goal: string;
  criteria: string[];
  max_turns: number;
  target: Record<string, unknown>;
  created_at: number;
  updated_at: number;
}

const toScenario = (r: Record<string, unknown>): ScenarioRow => ({
  ...(r as unknown as ScenarioRow),
  max_turns: Number(r.max_turns),
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
});
const SCENARIO = sql.raw('id, scenario_set_id, name, description, persona, goal, criteria, max_turns, target, created_at, updated_at');

/** Inserts or replaces a scenario; false when its name is taken by another scenario of its set. */
export async function saveScenario(db: Executor, projectId: string, s: ScenarioRow): Promise<boolean> {
  const found = await rows(
    db,
    sql`INSERT INTO simulation_scenarios (project_id, id, scenario_set_id, name, description, persona, goal, criteria, max_turns, target, created_at, updated_at)
        VALUES (${projectId}, ${s.id}, ${s.scenario_set_id}, ${s.name}, ${s.description}, ${s.persona}, ${s.goal}, ${jsonParam(s.criteria)}::jsonb, ${s.max_turns},
                ${jsonParam(s.target)}::jsonb, ${s.created_at}, ${s.updated_at})
        ON CONFLICT (project_id, id) DO UPDATE SET scenario_set_id = EXCLUDED.scenario_set_id, name = EXCLUDED.name, description = EXCLUDED.description,
          persona = EXCLUDED.persona, goal = EXCLUDED.goal, criteria = EXCLUDED.criteria, max_turns = EXCLUDED.max_turns, target = EXCLUDED.target,
          updated_at = EXCLUDED.updated_at
        RETURNING id`,
  ).catch((err: unknown) => {
    if (isUniqueViolation(err)) return null;
    throw err;
  });
  return found !== null;
}

export async function findScenario(db: Executor, projectId: string, id: string): Promise<ScenarioRow | null> {
  const [r] = await rows<Record<string, unknown>>(db, sql`SELECT ${SCENARIO} FROM simulation_scenarios WHERE project_id = ${projectId} AND id = ${id}`);
  return r ? toScenario(r) : null;
}

export async function listScenarios(db: Executor, projectId: string, scenarioSetId: string | null): Promise<ScenarioRow[]> {
  const found = await rows<Record<string, unknown>>(
    db,
    sql`SELECT ${SCENARIO} FROM simulation_scenarios WHERE project_id = ${projectId} ${scenarioSetId === null ? sql`` : sql`AND scenario_set_id = ${scenarioSetId}`}
        ORDER BY scenario_set_id, lower(name), id LIMIT 1000`,
  );
  return found.map(toScenario);
}

export async function deleteScenario(db: Executor, projectId: string, id: string): Promise<boolean> {
  return (await rows(db, sql`DELETE FROM simulation_scenarios WHERE project_id = ${projectId} AND id = ${id} RETURNING id`)).length > 0;
}

export async function insertServerRuns(db: Executor, runs: Array<{ projectId: string; organizationId: string; scenarioRunId: string; batchRunId: string; plan: unknown; at: number }>): Promise<void> {
  for (const r of runs) {
    await db.execute(
      sql`INSERT INTO simulation_server_runs (project_id, scenario_run_id, organization_id, batch_run_id, plan, created_at)
          VALUES (${r.projectId}, ${r.scenarioRunId}, ${r.organizationId}, ${r.batchRunId}, ${jsonParam(r.plan)}::jsonb, ${r.at})`,
    );
  }
}

export async function findServerRun(db: Executor, projectId: string, scenarioRunId: string): Promise<{ organization_id: string; batch_run_id: string; plan: unknown } | null> {
  const [r] = await rows<{ organization_id: string; batch_run_id: string; plan: unknown }>(
    db,
    sql`SELECT organization_id, batch_run_id, plan FROM simulation_server_runs WHERE project_id = ${projectId} AND scenario_run_id = ${scenarioRunId}`,
  );
  return r ?? null;
}

/** Per scenario of a batch: its runs and passes (a scenario run several times gives a rate), and the batch's label. */
export async function batchScenarioCounts(db: Executor, projectId: string, batchRunId: string): Promise<Array<{ scenario_id: string; name: string | null; scenario_set_id: string; label: string | null } & CountsRow>> {
  return rows(
    db,
    sql`SELECT scenario_id, max(name) AS name, min(scenario_set_id) AS scenario_set_id, max(metadata->>'label') AS label, ${COUNTS}
        FROM simulation_runs WHERE project_id = ${projectId} AND batch_run_id = ${batchRunId} AND archived_at IS NULL
        GROUP BY scenario_id ORDER BY scenario_id`,
  );
}

export async function deleteProjectScenarios(db: Executor, projectId: string): Promise<void> {
  await db.execute(sql`DELETE FROM simulation_scenarios WHERE project_id = ${projectId}`);
  await db.execute(sql`DELETE FROM simulation_server_runs WHERE project_id = ${projectId}`);
}

/** Scenarios and server-run plans whose HTTP agent holds sealed headers (a key rotation re-seals them), locked for the rotation's transaction. */
export async function sealedHeaderHolders(db: Executor): Promise<Array<{ kind: 'scenario' | 'plan'; projectId: string; id: string; doc: Record<string, unknown> }>> {
  const scenarios = await rows<{ projectId: string; id: string; doc: Record<string, unknown> }>(
    db,
    sql`SELECT project_id AS "projectId", id, target AS doc FROM simulation_scenarios WHERE target ? 'sealed_headers' FOR UPDATE`,
  );
  const plans = await rows<{ projectId: string; id: string; doc: Record<string, unknown> }>(
    db,
    sql`SELECT project_id AS "projectId", scenario_run_id AS id, plan AS doc FROM simulation_server_runs WHERE plan->'target' ? 'sealed_headers' FOR UPDATE`,
  );
  return [...scenarios.map((s) => ({ kind: 'scenario' as const, ...s })), ...plans.map((p) => ({ kind: 'plan' as const, ...p }))];
}

export async function replaceSealedHeaderHolder(db: Executor, kind: 'scenario' | 'plan', projectId: string, id: string, doc: unknown): Promise<void> {
  if (kind === 'scenario') await db.execute(sql`UPDATE simulation_scenarios SET target = ${jsonParam(doc)}::jsonb WHERE project_id = ${projectId} AND id = ${id}`);
  else await db.execute(sql`UPDATE simulation_server_runs SET plan = ${jsonParam(doc)}::jsonb WHERE project_id = ${projectId} AND scenario_run_id = ${id}`);
}

/** HTTP agents' sealed headers per key id: a scenario's agent, and the copies in the plans of its server runs (the key tools). */
export function sealedHeaderKeyCounts(db: Executor): Promise<{ key_id: string; n: number }[]> {
  return rows<{ key_id: string; n: number }>(
    db,
    sql`SELECT t->'sealed_headers'->'sealed'->>'keyId' AS key_id, count(*)::int AS n
          FROM (SELECT target AS t FROM simulation_scenarios UNION ALL SELECT plan->'target' FROM simulation_server_runs) s
          WHERE t ? 'sealed_headers' GROUP BY 1`,
  );
}
