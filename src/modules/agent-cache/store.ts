import { and, eq, gt, lte, ne, sql } from 'drizzle-orm';
import { relationExists, rows, type Executor } from '../../db/index.ts';
import { agentCacheEntries } from '../../db/schema/agent-cache.ts';

export type EntryRow = typeof agentCacheEntries.$inferSelect;

/** The entry unless its lifetime has passed (`now` comes from the app's clock, not the database's). */
export async function findLive(db: Executor, projectId: string, name: string, now: Date): Promise<EntryRow | null> {
  const [row] = await db
    .select()
    .from(agentCacheEntries)
    .where(and(eq(agentCacheEntries.projectId, projectId), eq(agentCacheEntries.name, name), gt(agentCacheEntries.expiresAt, now)));
  return row ?? null;
}

/** Last write wins: a second write to a name replaces the first, live or expired. */
export async function upsert(db: Executor, row: typeof agentCacheEntries.$inferInsert): Promise<void> {
  await db
    .insert(agentCacheEntries)
    .values(row)
    .onConflictDoUpdate({
      target: [agentCacheEntries.projectId, agentCacheEntries.name],
      set: {
        keyId: sql`excluded.key_id`,
        sealed: sql`excluded.sealed`,
        expiresAt: sql`excluded.expires_at`,
        updatedAt: sql`excluded.updated_at`,
      },
    });
}

export async function remove(db: Executor, projectId: string, name: string): Promise<boolean> {
  const rows = await db
    .delete(agentCacheEntries)
    .where(and(eq(agentCacheEntries.projectId, projectId), eq(agentCacheEntries.name, name)))
    .returning({ name: agentCacheEntries.name });
  return rows.length > 0;
}

export async function deleteExpired(db: Executor, now: Date): Promise<number> {
  const rows = await db.delete(agentCacheEntries).where(lte(agentCacheEntries.expiresAt, now)).returning({ name: agentCacheEntries.name });
  return rows.length;
}

/** Entries sealed with a key other than `keyId`, in (project, name) order after `after`. */
export async function sealedWithOtherKeys(db: Executor, keyId: string, after: { projectId: string; name: string } | null, limit: number): Promise<EntryRow[]> {
  return db
    .select()
    .from(agentCacheEntries)
    .where(
      and(
        ne(agentCacheEntries.keyId, keyId),
        after ? sql`(${agentCacheEntries.projectId}, ${agentCacheEntries.name}) > (${after.projectId}, ${after.name})` : undefined,
      ),
    )
    .orderBy(agentCacheEntries.projectId, agentCacheEntries.name)
    .limit(limit);
}

/** Seals the entry again unless it changed since it was read. */
export async function replaceSealed(db: Executor, row: EntryRow, next: { keyId: string; sealed: string }): Promise<boolean> {
  const changed = await db
    .update(agentCacheEntries)
    .set({ keyId: next.keyId, sealed: next.sealed })
    .where(and(eq(agentCacheEntries.projectId, row.projectId), eq(agentCacheEntries.name, row.name), eq(agentCacheEntries.sealed, row.sealed)))
    .returning({ name: agentCacheEntries.name });
  return changed.length > 0;
}

/** Sealed values per key id (the key tools: `spyglass keys rotate-encryption`). */
export function sealedKeyCounts(db: Executor): Promise<{ key_id: string; n: number }[]> {
  return rows<{ key_id: string; n: number }>(db, sql`SELECT key_id, count(*)::int AS n FROM agent_cache_entries GROUP BY key_id`);
}

/**
 * The key ids on sealed values, expired ones too (they are there until the sweep), for the
 * start check, which runs before migrations: none while the table does not exist. With the
 * key-id index (migration 0017) they are read in a few lookups per id; before it, in one scan.
 */
export async function sealedKeyIds(db: Executor): Promise<string[]> {
  if (!(await relationExists(db, 'agent_cache_entries'))) return [];
  const ids = (await relationExists(db, 'agent_cache_entries_key_id'))
    ? await rows<{ key_id: string }>(
        db,
        sql`WITH RECURSIVE ids(key_id) AS (
              (SELECT key_id FROM agent_cache_entries ORDER BY key_id LIMIT 1)
              UNION ALL
              SELECT (SELECT e.key_id FROM agent_cache_entries e WHERE e.key_id > ids.key_id ORDER BY e.key_id LIMIT 1) FROM ids WHERE ids.key_id IS NOT NULL)
            SELECT key_id FROM ids WHERE key_id IS NOT NULL`,
      )
    : await rows<{ key_id: string }>(db, sql`SELECT DISTINCT key_id FROM agent_cache_entries`);
  return ids.map((r) => r.key_id);
}
