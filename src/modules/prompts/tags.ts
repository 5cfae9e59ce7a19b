import { badRequest, notFound } from '../../platform/errors.ts';
import type { PromptScope, PromptsContext } from './context.ts';
import { findPrompt, LATEST, plainRef } from './lookup.ts';
import { presentTag, type TagView } from './presenters.ts';
import * as store from './store.ts';

/** Points a tag (production, staging, or any other) at a version, moving it if it pointed elsewhere. */
export async function setTag(ctx: PromptsContext, scope: PromptScope, ref: string, tag: string, target: { versionId?: string; version?: number }): Promise<TagView> {
  checkTag(tag);
  if ((target.versionId === undefined) === (target.version === undefined)) {
    throw badRequest('version_required', 'body.versionId: send exactly one of versionId or version', 'body.versionId');
  }
  const prompt = await findPrompt(ctx, scope, plainRef(ref), ref);
  const now = ctx.clock.now();
  return ctx.db.orm.transaction(async (tx) => {
    const version =
      target.versionId !== undefined ? await store.findVersionById(tx, prompt.id, target.versionId) : await store.findVersionByNumber(tx, prompt.id, target.version!);
    if (!version) {
      const label = target.versionId ?? String(target.version);
      throw notFound('version_not_found', `prompt ${prompt.handle} has no version ${label}`);
    }
    const saved = await store.upsertTag(tx, { promptId: prompt.id, tag, versionId: version.id, updatedAt: now });
    await store.updatePrompt(tx, prompt.id, { updatedAt: now });
    return presentTag(saved, version);
  });
}

export async function deleteTag(ctx: PromptsContext, scope: PromptScope, ref: string, tag: string): Promise<{ promptId: string; tag: string; deleted: true }> {
  checkTag(tag);
  const prompt = await findPrompt(ctx, scope, plainRef(ref), ref);
  if (!(await store.deleteTag(ctx.db.orm, prompt.id, tag))) {
    throw notFound('tag_not_found', `prompt ${prompt.handle} has no tag ${tag}`);
  }
  return { promptId: prompt.id, tag, deleted: true };
}

function checkTag(tag: string): void {
  if (tag === LATEST) throw badRequest('reserved_tag', 'tag: "latest" always means the newest version and cannot be set', 'tag');
}
