import { sql, type SQL } from 'drizzle-orm';
import { rows, type Executor, textArray } from '../../db/index.ts';
import { badRequest } from '../../platform/errors.ts';
import type { TraceRowRef } from '../traces/index.ts';
import { findScoreConfigs, scoresOfTraces } from './score-store.ts';
import type { ScoreSummary } from './scores.schema.ts';
import { summarizeScores } from './score-summaries.ts';

/** Trace search filter `has_annotation`: a condition on the trace rows the caller names. */
export function annotatedTraceCondition(trace: TraceRowRef, hasAnnotation: boolean): SQL {
  const exists = sql`EXISTS (SELECT 1 FROM annotations a WHERE a.project_id = ${trace.projectId} AND a.trace_id = ${trace.traceId})`;
  return hasAnnotation ? exists : sql`NOT ${exists}`;
}

/** Trace search filter `score`: the caller's trace rows with a score of the config within min..max, or equal to value. */
export function scoredTraceCondition(trace: TraceRowRef, f: { configId: string; min?: number; max?: number; value?: string | boolean }): SQL {
  const parts = [sql`s.config_id = ${f.configId}`];
  if (f.min !== undefined) parts.push(sql`s.number_value >= ${f.min}`);
  if (f.max !== undefined) parts.push(sql`s.number_value <= ${f.max}`);
  if (f.value !== undefined) parts.push(sql`s.text_value = ${String(f.value)}`);
  return sql`EXISTS (SELECT 1 FROM annotation_scores s WHERE s.project_id = ${trace.projectId} AND s.trace_id = ${trace.traceId} AND ${sql.join(parts, sql` AND `)})`;
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
