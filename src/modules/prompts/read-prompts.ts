import type { PromptScope, PromptsContext, VersionSelection } from './context.ts';
import { findPrompt, parseRef, plainRef, selectVersion, withSelection } from './lookup.ts';
import { presentPrompt, type PromptView } from './presenters.ts';
import * as store from './store.ts';
import { compileTemplate } from './template.ts';

export async function listPrompts(ctx: PromptsContext, scope: PromptScope): Promise<PromptView[]> {
  const rows = await store.listVisible(ctx.db.orm, scope);
  const ids = rows.map((r) => r.id);
  const [latest, tags] = await Promise.all([store.latestVersions(ctx.db.orm, ids), store.tagsOf(ctx.db.orm, ids)]);
  return rows.flatMap((p) => {
    const v = latest.get(p.id);
    return v ? [presentPrompt(p, v, tags, scope)] : [];
  });
}

/**
 * One prompt: its newest version, or `ref:3` (version 3), or `ref:production` (the version a
 * tag points at); the same selection may come as `select` (the `?version=` / `?tag=` query).
 */
export async function getPrompt(ctx: PromptsContext, scope: PromptScope, ref: string, select: VersionSelection = {}): Promise<PromptView> {
  const parsed = withSelection(parseRef(ref), select);
  const prompt = await findPrompt(ctx, scope, parsed.base, ref);
  const version = await selectVersion(ctx.db.orm, prompt, parsed, ref);
  return presentPrompt(prompt, version, await store.tagsOf(ctx.db.orm, [prompt.id]), scope);
}

/** Every version, newest first. */
export async function listVersions(ctx: PromptsContext, scope: PromptScope, ref: string): Promise<PromptView[]> {
  const prompt = await findPrompt(ctx, scope, plainRef(ref), ref);
  const [versions, tags] = await Promise.all([store.listVersions(ctx.db.orm, prompt.id), store.tagsOf(ctx.db.orm, [prompt.id])]);
  return versions.map((v) => presentPrompt(prompt, v, tags, scope));
}

/** The prompt (newest version, or the one `ref` selects) with its messages rendered. */
export async function compilePrompt(
  ctx: PromptsContext,
  scope: PromptScope,
  ref: string,
  variables: Record<string, unknown>,
  select: VersionSelection = {},
): Promise<PromptView & { variables: Record<string, unknown> }> {
  return render(await getPrompt(ctx, scope, ref, select), variables);
}

/** A version with its messages rendered with `variables` (the checks of compile). */
export function render(prompt: PromptView, variables: Record<string, unknown>): PromptView & { variables: Record<string, unknown> } {
  const rendered = compileTemplate(prompt, variables);
  return { ...prompt, prompt: rendered.prompt, messages: rendered.messages, variables };
}
