import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { rows, type Executor, textArray } from '../../db/index.ts';
import { annotationScores, scoreConfigs } from '../../db/schema/annotations.ts';
import { QueryBuilder } from 'drizzle-orm/pg-core';

export type ScoreConfigRow = typeof scoreConfigs.$inferSelect;
export type ScoreRow = typeof annotationScores.$inferSelect;

export async function insertScoreConfig(db: Executor, row: typeof scoreConfigs.$inferInsert): Promise<ScoreConfigRow | null> {
  const [created] = await db.insert(scoreConfigs).values(row).onConflictDoNothing().returning();
  return created ?? null;
}

export async function listScoreConfigs(db: Executor, projectId: string): Promise<ScoreConfigRow[]> {
  return db.select().from(scoreConfigs).where(eq(scoreConfigs.projectId, projectId)).orderBy(asc(scoreConfigs.name));
}

export async function findScoreConfigs(db: Executor, projectId: string, ids: string[]): Promise<ScoreConfigRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(scoreConfigs).where(and(eq(scoreConfigs.projectId, projectId), inArray(scoreConfigs.id, ids)));
}

export async function updateScoreConfig(db: Executor, projectId: string, id: string, patch: Partial<ScoreConfigRow>): Promise<ScoreConfigRow | null> {
  const [row] = await db.update(scoreConfigs).set(patch).where(and(eq(scoreConfigs.projectId, projectId), eq(scoreConfigs.id, id))).returning();
  return row ?? null;
}

export async function deleteScoreConfig(db: Executor, projectId: string, id: string): Promise<boolean> {
  const deleted = await db.delete(scoreConfigs).where(and(eq(scoreConfigs.projectId, projectId), eq(scoreConfigs.id, id))).returning({ id: scoreConfigs.id });
  return deleted.length > 0;
}

export async function insertScores(db: Executor, values: (typeof annotationScores.$inferInsert)[]): Promise<void> {
  if (values.length > 0) await db.insert(annotationScores).values(values);
}

/** The scores of these annotations, with their config's name and kind. */
export async function scoresOfAnnotations(db: Executor, projectId: string, annotationIds: string[]) {
  if (annotationIds.length === 0) return [];
  return db
    .select({ score: annotationScores, config: scoreConfigs })
    .from(annotationScores)
    .innerJoin(scoreConfigs, eq(scoreConfigs.id, annotationScores.configId))
    .where(and(eq(annotationScores.projectId, projectId), inArray(annotationScores.annotationId, annotationIds)))
    .orderBy(asc(scoreConfigs.name));
}

/** Every score of these traces with its config's name and kind, oldest first. */
export async function scoresOfTraces(db: Executor, projectId: string, traceIds: string[]) {
  if (traceIds.length === 0) return [];
  return rows<{ trace_id: string; config_id: string; name: string; kind: 'numeric' | 'boolean' | 'categorical'; number_value: number | null; text_value: string | null }>(
    db,
    sql`SELECT s.trace_id, s.config_id, c.name, c.kind, s.number_value, s.text_value
        FROM annotation_scores s JOIN score_configs c ON c.id = s.config_id
        WHERE s.project_id = ${projectId} AND s.trace_id = ANY(${textArray(traceIds)})
        ORDER BY s.created_at, s.id`,
  );
}

/** The latest score of one config on each trace people scored with it. */
export async function latestScoresOfConfig(db: Executor, projectId: string, configId: string) {
  return rows<{ traceId: string; numberValue: number | null; textValue: string | null }>(
    db,
    sql`SELECT DISTINCT ON (trace_id) trace_id AS "traceId", number_value AS "numberValue", text_value AS "textValue"
        FROM annotation_scores WHERE project_id = ${projectId} AND config_id = ${configId}
        ORDER BY trace_id, created_at DESC, id DESC`,
  );
}

/** Analytics: a project's scores of traces with their config's name and kind, as a typed relation to join with traces. */
export function scoresRelation(projectId: string) {
  return new QueryBuilder()
    .select({
      traceId: annotationScores.traceId,
      configId: annotationScores.configId,
      name: scoreConfigs.name,
      kind: scoreConfigs.kind,
      numberValue: annotationScores.numberValue,
      textValue: annotationScores.textValue,
    })
    .from(annotationScores)
    .innerJoin(scoreConfigs, eq(scoreConfigs.id, annotationScores.configId))
    .where(eq(annotationScores.projectId, projectId))
    .as('trace_scores');
}

/**
 * The config's mean number_value per scored trace, as a typed relation (traceId, mean) the trace
 * search joins to sort by. Its columns have names of their own: the search's unqualified columns
 * of `traces` (trace_id) must not meet a second one.
 */
export function scoreMeansByTrace(projectId: string, configId: string) {
  return new QueryBuilder()
    .select({ traceId: sql<string>`${annotationScores.traceId}`.as('sort_trace_id'), mean: sql<number>`avg(${annotationScores.numberValue})::float8`.as('score_mean') })
    .from(annotationScores)
    .where(and(eq(annotationScores.projectId, projectId), eq(annotationScores.configId, configId)))
    .groupBy(annotationScores.traceId)
    .as('sort_values');
}
