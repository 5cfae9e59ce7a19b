import { and, asc, desc, eq } from 'drizzle-orm';
import type { Executor } from '../../../db/index.ts';
import { customEvaluators, customEvaluatorVersions } from '../../../db/schema/evaluators.ts';

export type CustomRow = typeof customEvaluators.$inferSelect;
export type VersionRow = typeof customEvaluatorVersions.$inferSelect;

export async function insertEvaluator(db: Executor, row: typeof customEvaluators.$inferInsert): Promise<CustomRow | null> {
  const [inserted] = await db.insert(customEvaluators).values(row).onConflictDoNothing().returning();
  return inserted ?? null;
}

export async function insertVersion(db: Executor, row: typeof customEvaluatorVersions.$inferInsert): Promise<VersionRow> {
  const [inserted] = await db.insert(customEvaluatorVersions).values(row).returning();
  return inserted;
}

export async function findBySlug(db: Executor, projectId: string, slug: string, forUpdate = false): Promise<CustomRow | null> {
  const q = db.select().from(customEvaluators).where(and(eq(customEvaluators.projectId, projectId), eq(customEvaluators.slug, slug)));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row ?? null;
}

export async function list(db: Executor, projectId: string): Promise<CustomRow[]> {
  return db.select().from(customEvaluators).where(eq(customEvaluators.projectId, projectId)).orderBy(asc(customEvaluators.slug));
}

export async function findVersion(db: Executor, projectId: string, evaluatorId: string, version: number): Promise<VersionRow | null> {
  const [row] = await db
    .select()
    .from(customEvaluatorVersions)
    .where(and(eq(customEvaluatorVersions.projectId, projectId), eq(customEvaluatorVersions.evaluatorId, evaluatorId), eq(customEvaluatorVersions.version, version)));
  return row ?? null;
}

export async function listVersions(db: Executor, projectId: string, evaluatorId: string): Promise<VersionRow[]> {
  return db
    .select()
    .from(customEvaluatorVersions)
    .where(and(eq(customEvaluatorVersions.projectId, projectId), eq(customEvaluatorVersions.evaluatorId, evaluatorId)))
    .orderBy(desc(customEvaluatorVersions.version));
}

export async function updateEvaluator(db: Executor, id: string, patch: Partial<Pick<CustomRow, 'name' | 'description' | 'latestVersion' | 'updatedAt'>>): Promise<CustomRow> {
  const [row] = await db.update(customEvaluators).set(patch).where(eq(customEvaluators.id, id)).returning();
  return row;
}

export async function deleteEvaluator(db: Executor, projectId: string, id: string): Promise<boolean> {
  const deleted = await db.delete(customEvaluators).where(and(eq(customEvaluators.projectId, projectId), eq(customEvaluators.id, id))).returning({ id: customEvaluators.id });
  return deleted.length > 0;
}
