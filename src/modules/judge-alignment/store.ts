import { and, desc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/index.ts';
import { judgeTrustRules, judgeVersionComparisons } from '../../db/schema/judge-alignment.ts';

export type TrustRuleRow = typeof judgeTrustRules.$inferSelect;

export async function findTrustRule(db: Executor, projectId: string): Promise<TrustRuleRow | null> {
  const [row] = await db.select().from(judgeTrustRules).where(eq(judgeTrustRules.projectId, projectId));
  return row ?? null;
}

export async function saveTrustRule(db: Executor, row: TrustRuleRow): Promise<TrustRuleRow> {
  const [saved] = await db
    .insert(judgeTrustRules)
    .values(row)
    .onConflictDoUpdate({ target: judgeTrustRules.projectId, set: { statistic: row.statistic, atLeast: row.atLeast, minimumLabels: row.minimumLabels, updatedAt: row.updatedAt } })
    .returning();
  return saved;
}

export async function deleteProjectTrustRule(db: Executor, projectId: string): Promise<void> {
  await db.delete(judgeTrustRules).where(eq(judgeTrustRules.projectId, projectId));
}

// ---- version comparisons ----

export type VersionComparisonRow = typeof judgeVersionComparisons.$inferSelect;

export async function insertVersionComparison(db: Executor, row: VersionComparisonRow): Promise<void> {
  await db.insert(judgeVersionComparisons).values(row);
}

export async function findVersionComparison(db: Executor, projectId: string, id: string): Promise<VersionComparisonRow | null> {
  const [row] = await db.select().from(judgeVersionComparisons).where(and(eq(judgeVersionComparisons.projectId, projectId), eq(judgeVersionComparisons.id, id)));
  return row ?? null;
}

/** A judge's comparisons, newest first. */
export async function listVersionComparisons(db: Executor, projectId: string, evaluator: string, limit: number): Promise<VersionComparisonRow[]> {
  return db
    .select()
    .from(judgeVersionComparisons)
    .where(and(eq(judgeVersionComparisons.projectId, projectId), eq(judgeVersionComparisons.evaluator, evaluator)))
    .orderBy(desc(judgeVersionComparisons.createdAt), desc(judgeVersionComparisons.id))
    .limit(limit);
}

export async function finishVersionComparison(
  db: Executor,
  id: string,
  outcome: { status: 'done' | 'failed'; result: Record<string, unknown> | null; error: string | null; finishedAt: number },
): Promise<void> {
  // once: a comparison settled by two reads at once is stored by the first
  await db
    .update(judgeVersionComparisons)
    .set(outcome)
    .where(and(eq(judgeVersionComparisons.id, id), eq(judgeVersionComparisons.status, 'running')));
}

export async function deleteProjectVersionComparisons(db: Executor, projectId: string): Promise<void> {
  await db.delete(judgeVersionComparisons).where(eq(judgeVersionComparisons.projectId, projectId));
}
