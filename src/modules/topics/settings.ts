import type { TopicsContext, ProjectScope } from './context.ts';
import type { TopicSettings, TopicSettingsBody } from './schemas.ts';
import * as store from './store.ts';

/** The project's topics settings and the state of its topics (off until an embeddings model is set). */
export async function getTopicSettings(ctx: TopicsContext, projectId: string): Promise<TopicSettings> {
  const row = await store.getSettings(ctx.db.orm, projectId);
  return {
    embeddingsModel: row?.embeddingsModel ?? null,
    namingModel: row?.namingModel ?? null,
    reclusterHours: row?.reclusterHours ?? 24,
    updatedAt: row?.updatedAt ?? null,
    status: await topicsStatus(ctx, projectId, row),
  };
}

export async function topicsStatus(ctx: TopicsContext, projectId: string, row?: store.SettingsRow | null): Promise<TopicSettings['status']> {
  const settings = row === undefined ? await store.getSettings(ctx.db.orm, projectId) : row;
  return {
    enabled: !!settings?.embeddingsModel,
    builtAt: settings?.builtAt ?? null,
    builtTraces: settings?.builtTraces ?? null,
    embeddedTraces: await store.countEmbedded(ctx.db.orm, projectId),
    rebuildRequestedAt: settings?.buildRequestedAt ?? null,
    lastError: settings?.lastError ?? null,
    lastErrorAt: settings?.lastErrorAt ?? null,
  };
}

/**
 * Sets the models and schedule; applies from the next round. Each model's provider must exist
 * (400 naming the field); the models themselves are first called by the next round, whose
 * failure the status shows.
 */
export async function updateTopicSettings(ctx: TopicsContext, scope: ProjectScope, body: TopicSettingsBody): Promise<TopicSettings> {
  if (body.embeddingsModel) await ctx.checkProvider(scope, body.embeddingsModel, 'embeddingsModel');
  if (body.namingModel) await ctx.checkProvider(scope, body.namingModel, 'namingModel');
  await ctx.db.orm.transaction(async (tx) => {
    await store.saveSettings(tx, scope, { embeddingsModel: body.embeddingsModel, namingModel: body.namingModel, reclusterHours: body.reclusterHours }, ctx.clock.now().getTime());
  });
  return getTopicSettings(ctx, scope.projectId);
}
