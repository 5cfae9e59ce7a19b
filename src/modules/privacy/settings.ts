import type { PrivacyContext } from './context.ts';
import { presentSettings, type PrivacySettingsView } from './presenters.ts';
import type { PrivacySettingsBody } from './schemas.ts';
import * as store from './store.ts';

export async function getSettings(ctx: PrivacyContext, projectId: string): Promise<PrivacySettingsView> {
  return presentSettings(await store.findSettings(ctx.db.orm, projectId));
}

/**
 * Replaces the project's settings: they apply to what arrives from now on (this process's
 * copy is renewed here; other processes read them again within SETTINGS_REFRESH_MS).
 */
export async function updateSettings(ctx: PrivacyContext, projectId: string, body: PrivacySettingsBody): Promise<PrivacySettingsView> {
  const row = await store.saveSettings(ctx.db.orm, {
    projectId,
    mode: body.mode,
    entities: [...new Set(body.entities)],
    untouchedKeys: [...new Set(body.untouched_keys)],
    patterns: body.patterns,
    updatedAt: ctx.clock.now(),
  });
  ctx.policies.renew(projectId, row);
  return presentSettings(row);
}
