import { and, asc, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/index.ts';
import { evaluations } from '../../db/schema/index.ts';

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
    .where(and(eq(evaluations.projectId, projectId), sql`${evaluations.traceId} = ANY(ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(traceIds)}::jsonb)))`))
    .returning({ id: evaluations.id });
  return deleted.length;
}

export async function deleteInsertedBefore(db: Executor, projectId: string, beforeMs: number): Promise<number> {
  const deleted = await db
    .delete(evaluations)
    .where(and(eq(evaluations.projectId, projectId), lt(evaluations.insertedAt, beforeMs)))
    .returning({ id: evaluations.id });
  return deleted.length;
}
