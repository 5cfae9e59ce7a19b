import { and, asc, eq, isNull, ne, or, sql } from 'drizzle-orm';
import { rows, type Executor } from '../../db/index.ts';
import { modelProviders } from '../../db/schema/model-providers.ts';

export type ProviderRow = typeof modelProviders.$inferSelect;

export async function insertProvider(db: Executor, row: typeof modelProviders.$inferInsert): Promise<ProviderRow | null> {
  const [inserted] = await db.insert(modelProviders).values(row).onConflictDoNothing().returning();
  return inserted ?? null;
}

/** The project's own providers and its organization's, organization-wide ones last. */
export async function listVisible(db: Executor, organizationId: string, projectId: string): Promise<ProviderRow[]> {
  return db
    .select()
    .from(modelProviders)
    .where(and(eq(modelProviders.organizationId, organizationId), or(eq(modelProviders.projectId, projectId), isNull(modelProviders.projectId))))
    .orderBy(sql`project_id IS NULL`, asc(modelProviders.name));
}

export async function findVisible(db: Executor, organizationId: string, projectId: string, id: string): Promise<ProviderRow | null> {
  const [row] = await db
    .select()
    .from(modelProviders)
    .where(and(eq(modelProviders.id, id), eq(modelProviders.organizationId, organizationId), or(eq(modelProviders.projectId, projectId), isNull(modelProviders.projectId))));
  return row ?? null;
}

/** The provider a model name means in this project: the project's own, else the organization's. */
export async function findByName(db: Executor, organizationId: string, projectId: string, name: string): Promise<ProviderRow | null> {
  const [row] = await db
    .select()
    .from(modelProviders)
    .where(and(eq(modelProviders.organizationId, organizationId), eq(modelProviders.name, name), or(eq(modelProviders.projectId, projectId), isNull(modelProviders.projectId))))
    .orderBy(sql`project_id IS NULL`)
    .limit(1);
  return row ?? null;
}

export async function deleteProvider(db: Executor, id: string): Promise<boolean> {
  const deleted = await db.delete(modelProviders).where(eq(modelProviders.id, id)).returning({ id: modelProviders.id });
  return deleted.length > 0;
}

/** Providers whose key is sealed with another key than `keyId` (a rotation re-seals them). */
export async function sealedWithOtherKeys(db: Executor, keyId: string): Promise<ProviderRow[]> {
  return db.select().from(modelProviders).where(ne(modelProviders.keyId, keyId)).for('update');
}

export async function replaceSealedKey(db: Executor, id: string, sealed: { keyId: string; keySealed: string }): Promise<void> {
  await db.update(modelProviders).set(sealed).where(eq(modelProviders.id, id));
}

/** Sealed provider keys per key id (the key tools). */
export function sealedKeyCounts(db: Executor): Promise<{ key_id: string; n: number }[]> {
  return rows<{ key_id: string; n: number }>(db, sql`SELECT key_id, count(*)::int AS n FROM model_providers GROUP BY key_id`);
}
