import { and, count, desc, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import type { Executor } from '../../db/index.ts';
import { apiKeyBindings, apiKeys } from '../../db/schema/api-keys.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type BindingRow = typeof apiKeyBindings.$inferSelect;

export async function findKey(db: Executor, id: string): Promise<ApiKeyRow | null> {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, id));
  return row ?? null;
}

/** Records a use, at most once per `everyMs` per key (a write per request would cost ingest a write per batch). */
export async function touchKey(db: Executor, id: string, now: Date, everyMs: number): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, new Date(now.getTime() - everyMs)))));
}

export async function findKeyInOrganization(db: Executor, organizationId: string, id: string): Promise<ApiKeyRow | null> {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.organizationId, organizationId)));
  return row ?? null;
}

export async function listKeys(db: Executor, organizationId: string, ownerUserId?: string): Promise<ApiKeyRow[]> {
  const where = ownerUserId
    ? and(eq(apiKeys.organizationId, organizationId), eq(apiKeys.ownerUserId, ownerUserId))
    : eq(apiKeys.organizationId, organizationId);
  return db.select().from(apiKeys).where(where).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

export async function bindingsOf(db: Executor, keyIds: string[]): Promise<BindingRow[]> {
  if (keyIds.length === 0) return [];
  return db.select().from(apiKeyBindings).where(inArray(apiKeyBindings.apiKeyId, keyIds));
}

export async function insertKey(db: Executor, row: typeof apiKeys.$inferInsert, bindings: Omit<BindingRow, 'apiKeyId'>[]) {
  const [key] = await db.insert(apiKeys).values(row).returning();
  if (bindings.length) await db.insert(apiKeyBindings).values(bindings.map((b) => ({ ...b, apiKeyId: key.id })));
  return key;
}

export async function revokeKey(db: Executor, organizationId: string, id: string, at: Date): Promise<ApiKeyRow | null> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.organizationId, organizationId), isNull(apiKeys.revokedAt)))
    .returning();
  return row ?? null;
}

/** Revokes every live key of the installation; returns them as revoked. */
export async function revokeAllKeys(db: Executor, at: Date): Promise<ApiKeyRow[]> {
  return db.update(apiKeys).set({ revokedAt: at }).where(isNull(apiKeys.revokedAt)).returning();
}

/** Revokes the project's live project keys; returns them as revoked. */
export async function revokeProjectKeys(db: Executor, projectId: string, at: Date): Promise<ApiKeyRow[]> {
  return db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.projectId, projectId), eq(apiKeys.keyType, 'project'), isNull(apiKeys.revokedAt)))
    .returning();
}

/** A deleted project's bindings go with it (keys bound to other scopes too stay valid there). */
export async function deleteProjectBindings(db: Executor, projectId: string): Promise<void> {
  await db.delete(apiKeyBindings).where(and(eq(apiKeyBindings.scopeType, 'PROJECT'), eq(apiKeyBindings.scopeId, projectId)));
}

/** API keys not revoked (the key tools: a new token-hash key revokes them all). */
export async function liveKeyCount(db: Executor): Promise<number> {
  const [row] = await db.select({ n: count() }).from(apiKeys).where(isNull(apiKeys.revokedAt));
  return Number(row?.n ?? 0);
}
