import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/index.ts';
import { privacySettings } from '../../db/schema/privacy.ts';

export type PrivacySettingsRow = typeof privacySettings.$inferSelect;

/** The project's settings, or null when it never changed them (privacy is off). */
export async function findSettings(db: Executor, projectId: string): Promise<PrivacySettingsRow | null> {
  const [row] = await db.select().from(privacySettings).where(eq(privacySettings.projectId, projectId));
  return row ?? null;
}

export async function saveSettings(db: Executor, row: PrivacySettingsRow): Promise<PrivacySettingsRow> {
  const [saved] = await db
    .insert(privacySettings)
    .values(row)
    .onConflictDoUpdate({
      target: privacySettings.projectId,
      set: {
        mode: sql`excluded.mode`,
        entities: sql`excluded.entities`,
        untouchedKeys: sql`excluded.untouched_keys`,
        patterns: sql`excluded.patterns`,
        updatedAt: sql`excluded.updated_at`,
      },
    })
    .returning();
  return saved;
}

export async function deleteSettings(db: Executor, projectId: string): Promise<void> {
  await db.delete(privacySettings).where(eq(privacySettings.projectId, projectId));
}
