import { buildDue, buildTopics } from './build-topics.ts';
import type { TopicsContext } from './context.ts';
import { embedNewTraces } from './embed-traces.ts';
import * as store from './store.ts';

/**
 * One round of the topics schedule for every project with topics on: embed the traces that
 * arrived, then find the topics again when due. A project's failure is recorded on it and does
 * not stop the others.
 */
export async function runTopicRounds(ctx: TopicsContext, onlyProjectId?: string): Promise<{ embedded: number; built: number }> {
  let embedded = 0;
  let built = 0;
  for (const settings of await store.enabledProjects(ctx.db.orm)) {
    if (onlyProjectId && settings.projectId !== onlyProjectId) continue;
    const scope = { organizationId: settings.organizationId, projectId: settings.projectId };
    try {
      embedded += (await embedNewTraces(ctx, scope, settings.embeddingsModel!, settings.embeddedThrough)).embedded;
      const count = await store.countEmbedded(ctx.db.orm, scope.projectId);
      if (buildDue(settings, count, ctx.clock.now().getTime()) && (await buildTopics(ctx, scope, settings)).built) built++;
    } catch {
      // Recorded on the project by the step that failed (its topics page says why).
    }
  }
  return { embedded, built };
}

/** Asks for the project's topics to be found again at the next round (the API's "rebuild"). */
export async function requestRebuild(ctx: TopicsContext, projectId: string): Promise<number> {
  const at = ctx.clock.now().getTime();
  await store.requestBuild(ctx.db.orm, projectId, at);
  return at;
}
