import { and, desc, eq, inArray, max, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/index.ts';
import { promptTags, promptVersions, prompts } from '../../db/schema/prompts.ts';

export type PromptRow = typeof prompts.$inferSelect;
export type VersionRow = typeof promptVersions.$inferSelect;
export type TagRow = typeof promptTags.$inferSelect;

/** Where a request stands: its project, and the organization whose ORGANIZATION prompts it sees. */
export interface Visibility {
  projectId: string;
  organizationId: string;
}

const visible = (v: Visibility) =>
  or(
    and(eq(prompts.scope, 'PROJECT'), eq(prompts.projectId, v.projectId)),
    and(eq(prompts.scope, 'ORGANIZATION'), eq(prompts.organizationId, v.organizationId)),
  );

export async function listVisible(db: Executor, v: Visibility): Promise<PromptRow[]> {
  return db.select().from(prompts).where(visible(v)).orderBy(desc(prompts.updatedAt), prompts.id);
}

export async function findVisibleById(db: Executor, v: Visibility, id: string): Promise<PromptRow | null> {
  const [row] = await db.select().from(prompts).where(and(eq(prompts.id, id), visible(v)));
  return row ?? null;
}

/** A project prompt shadows an organization prompt with the same handle. */
export async function findVisibleByHandle(db: Executor, v: Visibility, handle: string): Promise<PromptRow | null> {
  const rows = await db.select().from(prompts).where(and(eq(prompts.handle, handle), visible(v)));
  return rows.find((r) => r.scope === 'PROJECT') ?? rows[0] ?? null;
}

/** The prompt holding `handle` in the given scope (the uniqueness rule), if any. */
export async function findHandleHolder(
  db: Executor,
  scope: 'ORGANIZATION' | 'PROJECT',
  v: Visibility,
  handle: string,
): Promise<PromptRow | null> {
  const owner = scope === 'PROJECT' ? eq(prompts.projectId, v.projectId) : eq(prompts.organizationId, v.organizationId);
  const [row] = await db
    .select()
    .from(prompts)
    .where(and(eq(prompts.scope, scope), eq(prompts.handle, handle), owner));
  return row ?? null;
}

/** Locks the prompt row: versions of one prompt are numbered one writer at a time. */
export async function lockPrompt(db: Executor, id: string): Promise<PromptRow | null> {
  const [row] = await db.select().from(prompts).where(eq(prompts.id, id)).for('update');
  return row ?? null;
}

export async function insertPrompt(db: Executor, row: typeof prompts.$inferInsert): Promise<PromptRow> {
  const [created] = await db.insert(prompts).values(row).returning();
  return created;
}

export async function updatePrompt(
  db: Executor,
  id: string,
  patch: Partial<Pick<PromptRow, 'handle' | 'scope' | 'name' | 'projectId' | 'updatedAt'>>,
): Promise<PromptRow> {
  const [row] = await db.update(prompts).set(patch).where(eq(prompts.id, id)).returning();
  return row;
}

export async function deletePrompt(db: Executor, id: string): Promise<boolean> {
  const rows = await db.delete(prompts).where(eq(prompts.id, id)).returning({ id: prompts.id });
  return rows.length > 0;
}

export async function insertVersion(db: Executor, row: typeof promptVersions.$inferInsert): Promise<VersionRow> {
  const [created] = await db.insert(promptVersions).values(row).returning();
  return created;
}

export async function latestVersionNumber(db: Executor, promptId: string): Promise<number> {
  const [row] = await db
    .select({ latest: max(promptVersions.version) })
    .from(promptVersions)
    .where(eq(promptVersions.promptId, promptId));
  return Number(row?.latest ?? 0);
}

/** The newest version of each prompt. */
export async function latestVersions(db: Executor, promptIds: string[]): Promise<Map<string, VersionRow>> {
  if (promptIds.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([promptVersions.promptId])
    .from(promptVersions)
    .where(inArray(promptVersions.promptId, promptIds))
    .orderBy(promptVersions.promptId, desc(promptVersions.version));
  return new Map(rows.map((r) => [r.promptId, r]));
}

export async function findVersionByNumber(db: Executor, promptId: string, version: number): Promise<VersionRow | null> {
  const [row] = await db
    .select()
    .from(promptVersions)
    .where(and(eq(promptVersions.promptId, promptId), eq(promptVersions.version, version)));
  return row ?? null;
}

export async function findVersionById(db: Executor, promptId: string, id: string): Promise<VersionRow | null> {
  const [row] = await db
    .select()
    .from(promptVersions)
    .where(and(eq(promptVersions.promptId, promptId), eq(promptVersions.id, id)));
  return row ?? null;
}

export async function listVersions(db: Executor, promptId: string): Promise<VersionRow[]> {
  return db.select().from(promptVersions).where(eq(promptVersions.promptId, promptId)).orderBy(desc(promptVersions.version));
}

export async function tagsOf(db: Executor, promptIds: string[]): Promise<TagRow[]> {
  if (promptIds.length === 0) return [];
  return db.select().from(promptTags).where(inArray(promptTags.promptId, promptIds)).orderBy(promptTags.tag);
}

export async function findTag(db: Executor, promptId: string, tag: string): Promise<TagRow | null> {
  const [row] = await db
    .select()
    .from(promptTags)
    .where(and(eq(promptTags.promptId, promptId), eq(promptTags.tag, tag)));
  return row ?? null;
}

export async function upsertTag(db: Executor, row: TagRow): Promise<TagRow> {
  const [saved] = await db
    .insert(promptTags)
    .values(row)
    .onConflictDoUpdate({
      target: [promptTags.promptId, promptTags.tag],
      set: { versionId: sql`excluded.version_id`, updatedAt: sql`excluded.updated_at` },
    })
    .returning();
  return saved;
}

export async function deleteTag(db: Executor, promptId: string, tag: string): Promise<boolean> {
  const rows = await db
    .delete(promptTags)
    .where(and(eq(promptTags.promptId, promptId), eq(promptTags.tag, tag)))
    .returning({ tag: promptTags.tag });
  return rows.length > 0;
}

/** A unique index refused the write (two creates racing for one handle). */
export { isUniqueViolation } from '../../db/index.ts';
