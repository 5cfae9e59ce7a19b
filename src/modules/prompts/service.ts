import type { Database, Tx } from '../../db/index.ts';
import type { PromptInput, PromptMessage, PromptOutput } from '../../db/schema/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError, badRequest, conflict, notFound } from '../../platform/errors.ts';
import { emitEvent } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import { HANDLE_PATTERN, TAG_PATTERN, type CreatePromptBody, type ModelParameters, type RunBody, type RunResponse, type UpdatePromptBody } from './schemas.ts';
import { compileTemplate } from './template.ts';
import * as store from './store.ts';
import { runPrompt, type PromptRunner, type RunStreamEvent } from './run-prompt.ts';

/** Who is asking, and through which project. */
export interface PromptContext {
  projectId: string;
  organizationId: string;
  /** The user of a personal key (the default author); null for project and service keys. */
  userId: string | null;
}

export type Scope = 'ORGANIZATION' | 'PROJECT';

export interface PromptView {
  id: string;
  handle: string | null;
  scope: Scope;
  name: string;
  updatedAt: string;
  projectId: string;
  organizationId: string;
  version: number;
  versionId: string;
  versionCreatedAt: string;
  model: string;
  prompt: string;
  messages: PromptMessage[];
  response_format: { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown> } } | null;
  parameters: ModelParameters;
  authorId: string | null;
  commitMessage: string | null;
  inputs: PromptInput[];
  outputs: PromptOutput[];
  tags: string[];
  createdAt: string;
}

export interface TagView {
  promptId: string;
  tag: string;
  versionId: string;
  version: number;
  updatedAt: string;
}

/** What a new prompt's version 1 holds when the request leaves it out (the peers' defaults). */
export const DEFAULT_VERSION = {
  model: 'openai/gpt-4o-mini',
  prompt: 'You are a helpful assistant.',
  messages: [{ role: 'user', content: '{{input}}' }] as PromptMessage[],
  inputs: [{ identifier: 'input', type: 'str' }] as PromptInput[],
  outputs: [{ identifier: 'output', type: 'str' }] as PromptOutput[],
  parameters: {},
};

/** `latest` always means the newest version; it cannot be moved by hand. */
const LATEST = 'latest';

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

/** `idOrHandle`, optionally `:<version number>` or `:<tag>`. */
interface PromptRef {
  base: string;
  selector: { version: number } | { tag: string } | null;
}

export type { PromptRunner } from './run-prompt.ts';

export class PromptService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly runner: PromptRunner | null = null,
  ) {}

  async list(ctx: PromptContext): Promise<PromptView[]> {
    const rows = await store.listVisible(this.db.orm, ctx);
    const ids = rows.map((r) => r.id);
    const [latest, tags] = await Promise.all([store.latestVersions(this.db.orm, ids), store.tagsOf(this.db.orm, ids)]);
    return rows.flatMap((p) => {
      const v = latest.get(p.id);
      return v ? [view(p, v, tags, ctx)] : [];
    });
  }

  async create(ctx: PromptContext, input: CreatePromptBody): Promise<PromptView> {
    const content = versionContent(input, DEFAULT_VERSION);
    checkDeclarations(content);
    const now = this.clock.now();
    return this.db.orm.transaction(async (tx) => {
      await this.requireHandleFree(tx, ctx, input.scope, input.handle, null);
      const prompt = await this.guardUnique(input.scope, input.handle, () =>
        store.insertPrompt(tx, {
          id: newId('prompt'),
          organizationId: ctx.organizationId,
          projectId: ctx.projectId,
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
        authorId: input.authorId ?? ctx.userId,
        commitMessage: input.commitMessage ?? 'Initial version',
        ...content,
        createdAt: now,
      });
      const created = view(prompt, version, [], ctx);
      await emitEvent(tx, { organizationId: ctx.organizationId, projectId: ctx.projectId, type: 'prompt.created', data: { prompt: created } }, now);
      return created;
    });
  }

  /**
   * One prompt: its newest version, or `ref:3` (version 3), or `ref:production` (the version a
   * tag points at); the same selection may come as `select` (the `?version=` / `?tag=` query).
   */
  async get(ctx: PromptContext, ref: string, select: VersionSelection = {}): Promise<PromptView> {
    const parsed = withSelection(parseRef(ref), select);
    const prompt = await this.find(ctx, parsed.base, ref);
    const version = await this.selectVersion(prompt, parsed, ref);
    return view(prompt, version, await store.tagsOf(this.db.orm, [prompt.id]), ctx);
  }

  /** Saves a new version; fields not sent carry over from the newest version. */
  async update(ctx: PromptContext, ref: string, input: UpdatePromptBody): Promise<PromptView> {
    const base = plainRef(ref);
    const found = await this.find(ctx, base, ref);
    const now = this.clock.now();
    return this.db.orm.transaction(async (tx) => {
      const prompt = (await store.lockPrompt(tx, found.id)) ?? throwNotFound(ref);
      const latest = (await store.latestVersions(tx, [prompt.id])).get(prompt.id)!;
      const content = versionContent(input, latest);
      checkDeclarations(content);
      const scope = input.scope ?? prompt.scope;
      const handle = input.handle ?? prompt.handle;
      // A prompt moved to PROJECT scope belongs to the project that moved it.
      const projectId = scope === 'PROJECT' && prompt.scope === 'ORGANIZATION' ? ctx.projectId : prompt.projectId;
      if (scope !== prompt.scope || handle !== prompt.handle) {
        await this.requireHandleFree(tx, { ...ctx, projectId: projectId ?? ctx.projectId }, scope, handle, prompt.id);
      }
      const updated = await this.guardUnique(scope, handle, () =>
        store.updatePrompt(tx, prompt.id, { scope, handle, projectId, name: input.name ?? prompt.name, updatedAt: now }),
      );
      return this.saveVersion(tx, ctx, updated, content, { authorId: input.authorId ?? ctx.userId, commitMessage: input.commitMessage }, now);
    });
  }

  /** Every version, newest first. */
  async versions(ctx: PromptContext, ref: string): Promise<PromptView[]> {
    const prompt = await this.find(ctx, plainRef(ref), ref);
    const [versions, tags] = await Promise.all([store.listVersions(this.db.orm, prompt.id), store.tagsOf(this.db.orm, [prompt.id])]);
    return versions.map((v) => view(prompt, v, tags, ctx));
  }

  /** A new version copying an old one (history is never rewritten). */
  async restore(
    ctx: PromptContext,
    ref: string,
    versionRef: string,
    input: { commitMessage?: string; authorId?: string } = {},
  ): Promise<PromptView> {
    const found = await this.find(ctx, plainRef(ref), ref);
    const now = this.clock.now();
    return this.db.orm.transaction(async (tx) => {
      const prompt = (await store.lockPrompt(tx, found.id)) ?? throwNotFound(ref);
      const old = await findVersion(tx, prompt.id, versionRef);
      if (!old) throw notFound('version_not_found', `prompt ${prompt.handle} has no version ${versionRef}`);
      const updated = await store.updatePrompt(tx, prompt.id, { updatedAt: now });
      return this.saveVersion(
        tx,
        ctx,
        updated,
        { model: old.model, prompt: old.prompt, messages: old.messages, inputs: old.inputs, outputs: old.outputs, parameters: old.parameters },
        { authorId: input.authorId ?? ctx.userId, commitMessage: input.commitMessage ?? `Restored from version ${old.version}`, restoredFrom: old },
        now,
      );
    });
  }

  /** Points a tag (production, staging, or any other) at a version, moving it if it pointed elsewhere. */
  async setTag(ctx: PromptContext, ref: string, tag: string, target: { versionId?: string; version?: number }): Promise<TagView> {
    checkTag(tag);
    if ((target.versionId === undefined) === (target.version === undefined)) {
      throw badRequest('version_required', 'body.versionId: send exactly one of versionId or version', 'body.versionId');
    }
    const prompt = await this.find(ctx, plainRef(ref), ref);
    const now = this.clock.now();
    return this.db.orm.transaction(async (tx) => {
      const version =
        target.versionId !== undefined
          ? await store.findVersionById(tx, prompt.id, target.versionId)
          : await store.findVersionByNumber(tx, prompt.id, target.version!);
      if (!version) {
        const label = target.versionId ?? String(target.version);
        throw notFound('version_not_found', `prompt ${prompt.handle} has no version ${label}`);
      }
      const saved = await store.upsertTag(tx, { promptId: prompt.id, tag, versionId: version.id, updatedAt: now });
      await store.updatePrompt(tx, prompt.id, { updatedAt: now });
      return { promptId: prompt.id, tag: saved.tag, versionId: version.id, version: version.version, updatedAt: saved.updatedAt.toISOString() };
    });
  }

  async deleteTag(ctx: PromptContext, ref: string, tag: string): Promise<{ promptId: string; tag: string; deleted: true }> {
    checkTag(tag);
    const prompt = await this.find(ctx, plainRef(ref), ref);
    if (!(await store.deleteTag(this.db.orm, prompt.id, tag))) {
      throw notFound('tag_not_found', `prompt ${prompt.handle} has no tag ${tag}`);
    }
    return { promptId: prompt.id, tag, deleted: true };
  }

  async delete(ctx: PromptContext, ref: string): Promise<{ id: string; handle: string; deleted: true }> {
    const prompt = await this.find(ctx, plainRef(ref), ref);
    const now = this.clock.now();
    await this.db.orm.transaction(async (tx) => {
      if (!(await store.deletePrompt(tx, prompt.id))) throwNotFound(ref);
      await emitEvent(
        tx,
        {
          organizationId: ctx.organizationId,
          projectId: ctx.projectId,
          type: 'prompt.deleted',
          data: { prompt: { id: prompt.id, handle: prompt.handle, scope: prompt.scope, name: prompt.name } },
        },
        now,
      );
    });
    return { id: prompt.id, handle: prompt.handle, deleted: true };
  }

  /** The prompt (newest version, or the one `ref` selects) with its messages rendered. */
  async compile(
    ctx: PromptContext,
    ref: string,
    variables: Record<string, unknown>,
    select: VersionSelection = {},
  ): Promise<PromptView & { variables: Record<string, unknown> }> {
    return render(await this.get(ctx, ref, select), variables);
  }

  /**
   * One version, looked up once, for many runs (an experiment's cells): each call renders it
   * with its variables and runs it as `run` does. The call's trace is recorded without the
   * call waiting for its commit: `recorded` settles when it is stored (or failed), so a
   * caller making many calls keeps its provider busy meanwhile and stores what refers to
   * the trace only after it.
   */
  async prepareRuns(ctx: PromptContext, ref: string, select: VersionSelection): Promise<PreparedPromptRun> {
    const runner = this.runner;
    if (!runner) throw new AppError(503, 'runner_unavailable', 'prompt runs are not wired in this server');
    const prompt = await this.get(ctx, ref, select);
    return (input, signal) => {
      // The first recording (a run records one trace) settles `recorded`; later calls do nothing.
      const trace = { settle: (_recording: Promise<void>) => {} };
      const recorded = new Promise<void>((resolve, reject) => {
        trace.settle = (recording) => {
          trace.settle = () => {};
          recording.then(resolve, reject);
        };
      });
      const deferred: PromptRunner = {
        complete: (...args) => runner.complete(...args),
        record: (scope, spans) => {
          trace.settle(runner.record(scope, spans));
          return Promise.resolve();
        },
      };
      const answer = runPrompt({ clock: this.clock, runner: deferred, compile: () => Promise.resolve(render(prompt, input.variables ?? {})) }, ctx, input, signal);
      // Refused before any call (nothing to record): settled at once.
      void answer.then(
        () => trace.settle(Promise.resolve()),
        () => trace.settle(Promise.resolve()),
      );
      return { answer, recorded };
    };
  }

  /**
   * "Try it": renders a version with `variables` (the checks of compile), sends it to the
   * model and records the call as a trace of the project (run-prompt.ts).
   */
  async run(ctx: PromptContext, ref: string, input: RunBody, signal?: AbortSignal, onEvent?: (event: RunStreamEvent) => void): Promise<RunResponse> {
    if (!this.runner) throw new AppError(503, 'runner_unavailable', 'prompt runs are not wired in this server');
    return runPrompt({ clock: this.clock, runner: this.runner, compile: (select) => this.compile(ctx, ref, input.variables ?? {}, select) }, ctx, input, signal, onEvent);
  }

  private async saveVersion(
    tx: Tx,
    ctx: PromptContext,
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
    const saved = view(prompt, version, await store.tagsOf(tx, [prompt.id]), ctx);
    await emitEvent(
      tx,
      {
        organizationId: ctx.organizationId,
        projectId: ctx.projectId,
        type: 'prompt.version_created',
        data: { prompt: saved, ...(meta.restoredFrom ? { restoredFrom: { versionId: meta.restoredFrom.id, version: meta.restoredFrom.version } } : {}) },
      },
      now,
    );
    return saved;
  }

  private async find(ctx: PromptContext, base: string, ref: string): Promise<store.PromptRow> {
    const byId = await store.findVisibleById(this.db.orm, ctx, base);
    if (byId) return byId;
    const byHandle = HANDLE_PATTERN.test(base) ? await store.findVisibleByHandle(this.db.orm, ctx, base) : null;
    return byHandle ?? throwNotFound(ref);
  }

  private async selectVersion(prompt: store.PromptRow, ref: PromptRef, raw: string): Promise<store.VersionRow> {
    if (!ref.selector || ('tag' in ref.selector && ref.selector.tag === LATEST)) {
      const latest = (await store.latestVersions(this.db.orm, [prompt.id])).get(prompt.id);
      return latest ?? throwNotFound(raw);
    }
    if ('version' in ref.selector) {
      const v = await store.findVersionByNumber(this.db.orm, prompt.id, ref.selector.version);
      if (!v) throw notFound('version_not_found', `prompt ${prompt.handle} has no version ${ref.selector.version}`);
      return v;
    }
    const tag = await store.findTag(this.db.orm, prompt.id, ref.selector.tag);
    const v = tag ? await store.findVersionById(this.db.orm, prompt.id, tag.versionId) : null;
    if (!v) throw notFound('tag_not_found', `prompt ${prompt.handle} has no tag ${ref.selector.tag}`);
    return v;
  }

  private async requireHandleFree(tx: Tx, ctx: PromptContext, scope: Scope, handle: string, self: string | null): Promise<void> {
    const holder = await store.findHandleHolder(tx, scope, ctx, handle);
    if (holder && holder.id !== self) throw handleTaken(scope, handle);
  }

  /** The unique index is the last word when two requests race for one handle. */
  private async guardUnique<T>(scope: Scope, handle: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (store.isUniqueViolation(err)) throw handleTaken(scope, handle);
      throw err;
    }
  }
}

function handleTaken(scope: Scope, handle: string): AppError {
  const where = scope === 'PROJECT' ? 'this project' : 'this organization';
  return conflict('handle_taken', `handle: a ${scope} prompt with handle "${handle}" already exists in ${where}`, 'handle');
}

function throwNotFound(ref: string): never {
  throw notFound('prompt_not_found', `no prompt "${ref}" in this project`);
}

function parseRef(ref: string): PromptRef {
  const colon = ref.lastIndexOf(':');
  if (colon < 0) return { base: ref, selector: null };
  const base = ref.slice(0, colon);
  const selector = ref.slice(colon + 1);
  if (/^\d+$/.test(selector)) {
    const version = Number(selector);
    if (version < 1 || !Number.isSafeInteger(version)) throw badRequest('invalid_version', `id: version ${selector} must be 1 or more`, 'id');
    return { base, selector: { version } };
  }
  if (!TAG_PATTERN.test(selector)) {
    throw badRequest('invalid_reference', `id: "${ref}" must be an id or handle, optionally followed by :<version> or :<tag>`, 'id');
  }
  return { base, selector: { tag: selector } };
}

/** `?version=` and `?tag=` of reads: the same selection as `ref:<version>` / `ref:<tag>`. */
export interface VersionSelection {
  version?: number | 'latest';
  tag?: string;
}

function withSelection(ref: PromptRef, select: VersionSelection): PromptRef {
  if (select.version !== undefined && select.tag !== undefined) {
    throw badRequest('conflicting_selection', 'version and tag: send one of them, not both', 'version');
  }
  const field = select.version !== undefined ? 'version' : 'tag';
  const wanted: PromptRef['selector'] =
    select.version === 'latest' ? { tag: LATEST } : select.version !== undefined ? { version: select.version } : select.tag !== undefined ? { tag: select.tag } : null;
  if (wanted === null) return ref;
  if (ref.selector !== null && JSON.stringify(ref.selector) !== JSON.stringify(wanted)) {
    throw badRequest('conflicting_selection', `${field}: differs from the version or tag named in the id`, field);
  }
  return { base: ref.base, selector: wanted };
}

/** Writes address the prompt itself, never one version of it. */
function plainRef(ref: string): string {
  if (ref.includes(':')) {
    throw badRequest('invalid_reference', `id: "${ref}" names a version; address the prompt by its id or handle`, 'id');
  }
  return ref;
}

function checkTag(tag: string): void {
  if (tag === LATEST) throw badRequest('reserved_tag', 'tag: "latest" always means the newest version and cannot be set', 'tag');
}

async function findVersion(tx: Tx, promptId: string, versionRef: string): Promise<store.VersionRow | null> {
  if (/^\d+$/.test(versionRef)) return store.findVersionByNumber(tx, promptId, Number(versionRef));
  return store.findVersionById(tx, promptId, versionRef);
}

/** Identifiers are unique per list; a json_schema output carries its schema (it becomes response_format). */
function checkDeclarations(content: VersionContent): void {
  const seen = new Set<string>();
  for (const [i, input] of content.inputs.entries()) {
    if (seen.has(input.identifier)) {
      throw badRequest('duplicate_input', `inputs.${i}.identifier: "${input.identifier}" is declared twice`, `inputs.${i}.identifier`);
    }
    seen.add(input.identifier);
  }
  seen.clear();
  let schemas = 0;
  for (const [i, output] of content.outputs.entries()) {
    if (seen.has(output.identifier)) {
      throw badRequest('duplicate_output', `outputs.${i}.identifier: "${output.identifier}" is declared twice`, `outputs.${i}.identifier`);
    }
    seen.add(output.identifier);
    if (output.type === 'json_schema') {
      if (!output.json_schema) {
        throw badRequest('json_schema_required', `outputs.${i}.json_schema: an output of type json_schema needs its schema`, `outputs.${i}.json_schema`);
      }
      if (++schemas > 1) {
        throw badRequest('too_many_json_schemas', `outputs.${i}.type: only one output may be of type json_schema (it becomes response_format)`, `outputs.${i}.type`);
      }
    }
  }
  checkToolChoice(content.parameters);
}

/** A tool_choice that names a tool, or requires one, needs the tool declared. */
export function checkToolChoice(parameters: ModelParameters): void {
  const choice = parameters.tool_choice;
  if (choice === undefined || choice === 'auto' || choice === 'none') return;
  const names = (parameters.tools ?? []).map((t) => t.function.name);
  if (choice === 'required' && names.length === 0) {
    throw badRequest('tool_choice_without_tools', 'parameters.tool_choice: required needs at least one tool in parameters.tools', 'parameters.tool_choice');
  }
  if (typeof choice === 'object' && !names.includes(choice.function.name)) {
    throw badRequest('unknown_tool', `parameters.tool_choice: no tool named ${choice.function.name} in parameters.tools`, 'parameters.tool_choice');
  }
}

function responseFormat(outputs: PromptOutput[]): PromptView['response_format'] {
  const out = outputs.find((o) => o.type === 'json_schema' && o.json_schema);
  return out ? { type: 'json_schema', json_schema: { name: out.identifier, schema: out.json_schema! } } : null;
}

function view(p: store.PromptRow, v: store.VersionRow, tags: store.TagRow[], ctx: PromptContext): PromptView {
  return {
    id: p.id,
    handle: p.handle,
    scope: p.scope,
    name: p.name,
    updatedAt: p.updatedAt.toISOString(),
    // An ORGANIZATION prompt whose originating project was deleted reads as the caller's.
    projectId: p.projectId ?? ctx.projectId,
    organizationId: p.organizationId,
    version: v.version,
    versionId: v.id,
    versionCreatedAt: v.createdAt.toISOString(),
    model: v.model,
    prompt: v.prompt,
    messages: v.messages,
    response_format: responseFormat(v.outputs),
    parameters: v.parameters,
    authorId: v.authorId,
    commitMessage: v.commitMessage,
    inputs: v.inputs,
    outputs: v.outputs,
    tags: tags.filter((t) => t.promptId === p.id && t.versionId === v.id).map((t) => t.tag),
    createdAt: p.createdAt.toISOString(),
  };
}

/** A version with its messages rendered with `variables` (the checks of compile). */
function render(prompt: PromptView, variables: Record<string, unknown>): PromptView & { variables: Record<string, unknown> } {
  const rendered = compileTemplate(prompt, variables);
  return { ...prompt, prompt: rendered.prompt, messages: rendered.messages, variables };
}

/** A prepared version's run (PromptService.prepareRuns): the answer, and when its trace is stored. */
export type PreparedPromptRun = (
  input: { variables?: Record<string, unknown>; model?: string },
  signal?: AbortSignal,
) => { answer: Promise<RunResponse>; recorded: Promise<void> };
