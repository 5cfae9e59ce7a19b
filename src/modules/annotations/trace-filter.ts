import { sql, type SQL } from 'drizzle-orm';
import { rows, type Executor, textArray } from '../../db/index.ts';
import { badRequest } from '../../platform/errors.ts';
import { findScoreConfigs, scoresOfTraces } from './score-store.ts';
import type { ScoreSummary } from './scores.schema.ts';
import { summarizeScores } from './score-summaries.ts';

/** Trace search filter `has_annotation`: a condition on rows of `traces`. */
export function annotatedTraceCondition(hasAnnotation: boolean): SQL {
  const exists = sql`EXISTS (SELECT 1 FROM annotations a WHERE a.project_id = traces.project_id AND a.trace_id = traces.trace_id)`;
  return hasAnnotation ? exists : sql`NOT ${exists}`;
}

/** Trace search filter `score`: traces with a score of the config within min..max, or equal to value. */
export function scoredTraceCondition(f: { configId: string; min?: number; max?: number; value?: string | boolean }): SQL {
  const parts = [sql`s.config_id = ${f.configId}`];
  if (f.min !== undefined) parts.push(sql`s.number_value >= ${f.min}`);
  if (f.max !== undefined) parts.push(sql`s.number_value <= ${f.max}`);
  if (f.value !== undefined) parts.push(sql`s.text_value = ${String(f.value)}`);
  return sql`EXISTS (SELECT 1 FROM annotation_scores s WHERE s.project_id = traces.project_id AND s.trace_id = traces.trace_id AND ${sql.join(parts, sql` AND `)})`;
}

/** Retention: a swept trace takes its annotations with it. */
export async function deleteTraceAnnotations(tx: Executor, projectId: string, traceIds: string[]): Promise<void> {
  await tx.execute(
    sql`DELETE FROM annotations WHERE project_id = ${projectId} AND trace_id = ANY(${textArray(traceIds)})`,
  );
}

/** The traces list: thumbs up and down per trace, for a page of traces. */
export async function annotationCountsByTrace(db: Executor, projectId: string, traceIds: string[]): Promise<Map<string, { thumbs_up: number; thumbs_down: number }>> {
  const found = await rows<{ trace_id: string; up: number; down: number }>(
    db,
    sql`SELECT trace_id, count(*) FILTER (WHERE is_thumbs_up)::int AS up, count(*) FILTER (WHERE NOT is_thumbs_up)::int AS down
        FROM annotations WHERE project_id = ${projectId} AND trace_id = ANY(${textArray(traceIds)})
        GROUP BY trace_id`,
  );
  return new Map(found.map((r) => [r.trace_id, { thumbs_up: Number(r.up), thumbs_down: Number(r.down) }]));
}

/** Analytics: rows (trace_id, is_thumbs_up) of a project's annotations, to join with traces. */
export function thumbsSql(projectId: string): SQL {
  return sql`SELECT trace_id, is_thumbs_up FROM annotations WHERE project_id = ${projectId}`;
}

/**
 * Per trace: its scores summed up per config (numeric: mean; boolean: share true; categorical:
 * counts per category; each with the latest value), for a page of traces in one query.
 */
export async function scoreSummariesByTrace(db: Executor, projectId: string, traceIds: string[]): Promise<Map<string, ScoreSummary[]>> {
  return summarizeScores((await scoresOfTraces(db, projectId, traceIds)).map((r) => ({ ...r, key: r.trace_id })));
}

/**
 * Trace search `sortByScore`: rows (trace_id, value) of the config's mean per scored trace
 * (boolean: the share true). A config that is missing or categorical is a 400 naming the field.
 */
export async function scoreSortSql(db: Executor, projectId: string, configId: string, field: string): Promise<SQL> {
  const [config] = await findScoreConfigs(db, projectId, [configId]);
  if (!config) throw badRequest('validation_error', `${field}: no score config ${JSON.stringify(configId)} in this project (GET /api/score-configs)`, field);
  if (config.kind === 'categorical') throw badRequest('validation_error', `${field}: ${JSON.stringify(config.name)} is categorical; sort by a numeric or boolean score`, field);
  return sql`SELECT trace_id, avg(number_value) AS value FROM annotation_scores WHERE project_id = ${projectId} AND config_id = ${configId} GROUP BY trace_id`;
}

/** Analytics: rows (trace_id, config_id, name, kind, number_value, text_value) of a project's scores, to join with traces. */
export function scoresSql(projectId: string): SQL {
  return sql`SELECT s.trace_id, s.config_id, c.name, c.kind, s.number_value, s.text_value
             FROM annotation_scores s JOIN score_configs c ON c.id = s.config_id WHERE s.project_id = ${projectId}`;
}
