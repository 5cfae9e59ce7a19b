import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/index.ts';
import { judgeTrustRules } from '../../db/schema/index.ts';

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
