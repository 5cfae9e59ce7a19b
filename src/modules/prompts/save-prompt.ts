import type { Tx } from '../../db/index.ts';
import type { PromptInput, PromptMessage, PromptOutput } from '../../db/schema/index.ts';
import { AppError, conflict, notFound } from '../../platform/errors.ts';
import { emitEvent } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import type { PromptScope, PromptsContext } from './context.ts';
import { checkDeclarations } from './declarations.ts';
import { findPrompt, findVersion, plainRef, throwNotFound } from './lookup.ts';
import { presentPrompt, type PromptView } from './presenters.ts';
import type { CreatePromptBody, UpdatePromptBody } from './schemas.ts';
import * as store from './store.ts';

type Visibility = store.PromptRow['scope'];

/** What a new prompt's version 1 holds when the request leaves it out (the peers' defaults). */
export const DEFAULT_VERSION = {
  model: 'openai/gpt-4o-mini',
  prompt: 'You are a helpful assistant.',
  messages: [{ role: 'user', content: '{{input}}' }] as PromptMessage[],
  inputs: [{ identifier: 'input', type: 'str' }] as PromptInput[],
  outputs: [{ identifier: 'output', type: 'str' }] as PromptOutput[],
  parameters: {},
};

type VersionContent = Pick<store.VersionRow, 'model' | 'prompt' | 'messages' | 'inputs' | 'outputs' | 'parameters'>;

/** A version's content: the fields sent, the rest carried over from `base`. */
function versionContent(input: Partial<VersionContent>, base: VersionContent): VersionContent {
  return {
    model: input.model ?? base.model,
    prompt: input.prompt ?? base.prompt,
    messages: input.messages ?? base.messages,
    inputs: input.inputs ?? base.inputs,
    outputs: input.outputs ?? base.outputs,
    parameters: input.parameters ?? base.parameters,
  };
}

export async function createPrompt(ctx: PromptsContext, scope: PromptScope, input: CreatePromptBody): Promise<PromptView> {
  const content = versionContent(input, DEFAULT_VERSION);
  checkDeclarations(content);
  const now = ctx.clock.now();
  return ctx.db.orm.transaction(async (tx) => {
    await requireHandleFree(tx, scope, input.scope, input.handle, null);
    const prompt = await guardUnique(input.scope, input.handle, () =>
      store.insertPrompt(tx, {
        id: newId('prompt'),
        organizationId: scope.organizationId,
        projectId: scope.projectId,
        scope: input.scope,
        handle: input.handle,
        name: input.name ?? input.handle,
        createdAt: now,
        updatedAt: now,
      }),
    );
    const version = await store.insertVersion(tx, {
      id: newId('pv'),
      promptId: prompt.id,
      version: 1,
      authorId: input.authorId ?? scope.userId,
      commitMessage: input.commitMessage ?? 'Initial version',
      ...content,
      createdAt: now,
    });
    const created = presentPrompt(prompt, version, [], scope);
    await emitEvent(tx, { organizationId: scope.organizationId, projectId: scope.projectId, type: 'prompt.created', data: { prompt: created } }, now);
    return created;
  });
}

/** Saves a new version; fields not sent carry over from the newest version. */
export async function updatePrompt(ctx: PromptsContext, scope: PromptScope, ref: string, input: UpdatePromptBody): Promise<PromptView> {
  const base = plainRef(ref);
  const found = await findPrompt(ctx, scope, base, ref);
  const now = ctx.clock.now();
  return ctx.db.orm.transaction(async (tx) => {
    const prompt = (await store.lockPrompt(tx, found.id)) ?? throwNotFound(ref);
    const latest = (await store.latestVersions(tx, [prompt.id])).get(prompt.id)!;
    const content = versionContent(input, latest);
    checkDeclarations(content);
    const visibility = input.scope ?? prompt.scope;
    const handle = input.handle ?? prompt.handle;
    // A prompt moved to PROJECT scope belongs to the project that moved it.
    const projectId = visibility === 'PROJECT' && prompt.scope === 'ORGANIZATION' ? scope.projectId : prompt.projectId;
    if (visibility !== prompt.scope || handle !== prompt.handle) {
      await requireHandleFree(tx, { ...scope, projectId: projectId ?? scope.projectId }, visibility, handle, prompt.id);
    }
    const updated = await guardUnique(visibility, handle, () =>
      store.updatePrompt(tx, prompt.id, { scope: visibility, handle, projectId, name: input.name ?? prompt.name, updatedAt: now }),
    );
    return saveVersion(tx, scope, updated, content, { authorId: input.authorId ?? scope.userId, commitMessage: input.commitMessage }, now);
  });
}

/** A new version copying an old one (history is never rewritten). */
export async function restoreVersion(
  ctx: PromptsContext,
  scope: PromptScope,
  ref: string,
  versionRef: string,
  input: { commitMessage?: string; authorId?: string } = {},
): Promise<PromptView> {
  const found = await findPrompt(ctx, scope, plainRef(ref), ref);
  const now = ctx.clock.now();
  return ctx.db.orm.transaction(async (tx) => {
    const prompt = (await store.lockPrompt(tx, found.id)) ?? throwNotFound(ref);
    const old = await findVersion(tx, prompt.id, versionRef);
    if (!old) throw notFound('version_not_found', `prompt ${prompt.handle} has no version ${versionRef}`);
    const updated = await store.updatePrompt(tx, prompt.id, { updatedAt: now });
    return saveVersion(
      tx,
      scope,
      updated,
      { model: old.model, prompt: old.prompt, messages: old.messages, inputs: old.inputs, outputs: old.outputs, parameters: old.parameters },
      { authorId: input.authorId ?? scope.userId, commitMessage: input.commitMessage ?? `Restored from version ${old.version}`, restoredFrom: old },
      now,
    );
  });
}

export async function deletePrompt(ctx: PromptsContext, scope: PromptScope, ref: string): Promise<{ id: string; handle: string; deleted: true }> {
  const prompt = await findPrompt(ctx, scope, plainRef(ref), ref);
  const now = ctx.clock.now();
  await ctx.db.orm.transaction(async (tx) => {
    if (!(await store.deletePrompt(tx, prompt.id))) throwNotFound(ref);
    await emitEvent(
      tx,
      {
        organizationId: scope.organizationId,
        projectId: scope.projectId,
        type: 'prompt.deleted',
        data: { prompt: { id: prompt.id, handle: prompt.handle, scope: prompt.scope, name: prompt.name } },
      },
      now,
    );
  });
  return { id: prompt.id, handle: prompt.handle, deleted: true };
}

async function saveVersion(
  tx: Tx,
  scope: PromptScope,
  prompt: store.PromptRow,
  content: VersionContent,
  meta: { authorId: string | null; commitMessage: string; restoredFrom?: store.VersionRow },
  now: Date,
): Promise<PromptView> {
  const next = (await store.latestVersionNumber(tx, prompt.id)) + 1;
  const version = await store.insertVersion(tx, {
    id: newId('pv'),
    promptId: prompt.id,
    version: next,
    authorId: meta.authorId,
    commitMessage: meta.commitMessage,
    ...content,
    createdAt: now,
  });
  const saved = presentPrompt(prompt, version, await store.tagsOf(tx, [prompt.id]), scope);
  await emitEvent(
    tx,
    {
      organizationId: scope.organizationId,
      projectId: scope.projectId,
      type: 'prompt.version_created',
      data: { prompt: saved, ...(meta.restoredFrom ? { restoredFrom: { versionId: meta.restoredFrom.id, version: meta.restoredFrom.version } } : {}) },
    },
    now,
  );
  return saved;
}

async function requireHandleFree(tx: Tx, scope: PromptScope, visibility: Visibility, handle: string, self: string | null): Promise<void> {
  const holder = await store.findHandleHolder(tx, visibility, scope, handle);
  if (holder && holder.id !== self) throw handleTaken(visibility, handle);
}

/** The unique index is the last word when two requests race for one handle. */
async function guardUnique<T>(visibility: Visibility, handle: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (store.isUniqueViolation(err)) throw handleTaken(visibility, handle);
    throw err;
  }
}

function handleTaken(visibility: Visibility, handle: string): AppError {
  const where = visibility === 'PROJECT' ? 'this project' : 'this organization';
  return conflict('handle_taken', `handle: a ${visibility} prompt with handle "${handle}" already exists in ${where}`, 'handle');
}
