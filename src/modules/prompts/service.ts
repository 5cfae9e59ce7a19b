import type { Database, Tx } from '../../db/index.ts';
import type { PromptInput, PromptMessage, PromptOutput } from '../../db/schema/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError, badRequest, conflict, notFound } from '../../platform/errors.ts';
import { emitEvent } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import { randomBytes } from 'node:crypto';
import type { NormalizedSpan } from '../traces/index.ts';
import { HANDLE_PATTERN, TAG_PATTERN, type CreatePromptBody, type RunBody, type RunResponse, type UpdatePromptBody } from './schemas.ts';
import { compileTemplate } from './template.ts';
import * as store from './store.ts';

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
};

/** `latest` always means the newest version; it cannot be moved by hand. */
const LATEST = 'latest';

type VersionContent = Pick<store.VersionRow, 'model' | 'prompt' | 'messages' | 'inputs' | 'outputs'>;

/** A version's content: the fields sent, the rest carried over from `base`. */
function versionContent(input: Partial<VersionContent>, base: VersionContent): VersionContent {
  return {
    model: input.model ?? base.model,
    prompt: input.prompt ?? base.prompt,
    messages: input.messages ?? base.messages,
    inputs: input.inputs ?? base.inputs,
    outputs: input.outputs ?? base.outputs,
  };
}

/** `idOrHandle`, optionally `:<version number>` or `:<tag>`. */
interface PromptRef {
  base: string;
  selector: { version: number } | { tag: string } | null;
}

/** What "Try it" needs of other modules (wired by app.ts): the judges' model provider, and trace ingest. */
export interface PromptRunner {
  /** One chat completion; throws HTTP errors (400 on the model, 503 not configured, 502, 504). */
  complete(
    model: string,
    messages: PromptMessage[],
    signal?: AbortSignal,
    /** The version's JSON Schema output, sent as the request's response_format. */
    responseFormat?: PromptView['response_format'],
  ): Promise<{
    text: string;
    /** e.g. openai */
    provider: string;
    responseModel: string;
    usage: { prompt_tokens: number; completion_tokens: number; cached_input_tokens: number; reasoning_tokens: number };
    cost?: { currency: string; amount: number };
  }>;
  /** Stores spans as a trace of the project. */
  record(scope: { organizationId: string; projectId: string }, spans: NormalizedSpan[]): Promise<void>;
}

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
        { model: old.model, prompt: old.prompt, messages: old.messages, inputs: old.inputs, outputs: old.outputs },
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
    const prompt = await this.get(ctx, ref, select);
    const rendered = compileTemplate(prompt, variables);
    return { ...prompt, prompt: rendered.prompt, messages: rendered.messages, variables };
  }

  /**
   * "Try it": renders a version with `variables` (the checks of compile), sends it to the
   * model (the version's, or `input.model`) and records the call as a trace of the project,
   * also when the provider fails (the error then answers with the trace id in its meta).
   */
  async run(ctx: PromptContext, ref: string, input: RunBody, signal?: AbortSignal): Promise<RunResponse> {
    if (!this.runner) throw new AppError(503, 'runner_unavailable', 'prompt runs are not wired in this server');
    const select: VersionSelection = input.version !== undefined ? { version: input.version } : input.tag !== undefined ? { tag: input.tag } : {};
    if (input.version !== undefined && input.tag !== undefined) throw badRequest('conflicting_selection', 'version and tag: send one of them, not both', 'version');
    const prompt = await this.compile(ctx, ref, input.variables ?? {}, select);
    const model = input.model ?? prompt.model;
    const messages: PromptMessage[] = [...(prompt.prompt.trim() ? [{ role: 'system' as const, content: prompt.prompt }] : []), ...prompt.messages];
    const traceId = randomBytes(16).toString('hex');
    const started = this.clock.now().getTime();
    const t0 = performance.now();
    const span = (fields: Partial<NormalizedSpan>): NormalizedSpan => {
      const latency = Math.round(performance.now() - t0);
      return {
        trace_id: traceId,
        span_id: randomBytes(8).toString('hex'),
        parent_id: null,
        name: `prompt ${prompt.handle ?? prompt.id} v${prompt.version}`,
        type: 'llm',
        model,
        vendor: null,
        started_at: started,
        finished_at: started + latency,
        first_token_at: null,
        params: {},
        metrics: { prompt_tokens: null, completion_tokens: null, cached_input_tokens: null, reasoning_tokens: null, tokens_estimated: false, cost: null },
        input: { type: 'chat_messages', value: messages.map((m) => ({ role: m.role, content: m.content })) },
        output: null,
        error: null,
        trace_metadata: {
          labels: ['prompt-run'],
          ...(ctx.userId ? { user_id: ctx.userId } : {}),
          extra: { prompt_id: prompt.id, prompt_handle: prompt.handle, prompt_version: prompt.version, prompt_version_id: prompt.versionId },
        },
        attributes: { 'spyglass.prompt.id': prompt.id, 'spyglass.prompt.version': prompt.version },
        resource: { 'service.name': 'spyglass' },
        scope: { name: 'spyglass.prompts', version: null },
        events: [],
        links: [],
        status: { code: 'ok', message: null },
        kind: 'client',
        ...fields,
      };
    };
    const scope = { organizationId: ctx.organizationId, projectId: ctx.projectId };
    let answer: Awaited<ReturnType<PromptRunner['complete']>>;
    try {
      answer = await this.runner.complete(model, messages, signal, prompt.response_format);
    } catch (err) {
      // Only calls that reached the provider are traces; a refused model or missing key is not a run.
      if (err instanceof AppError && err.status >= 500 && err.code !== 'provider_not_configured') {
        await this.runner.record(scope, [span({ error: { has_error: true, message: err.message, stacktrace: [] }, status: { code: 'error', message: err.message } })]);
        throw new AppError(err.status, err.code, err.message, { meta: { ...err.meta, trace_id: traceId } });
      }
      throw err;
    }
    const latency = Math.round(performance.now() - t0);
    const { usage } = answer;
    await this.runner.record(scope, [
      span({
        model: answer.responseModel,
        vendor: answer.provider,
        finished_at: started + latency,
        output: { type: 'chat_messages', value: [{ role: 'assistant', content: answer.text }] },
        metrics: { ...usage, tokens_estimated: false, cost: answer.cost?.amount ?? null },
      }),
    ]);
    return {
      output: { role: 'assistant', content: answer.text },
      model: answer.responseModel,
      usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens },
      cost: answer.cost ? { currency: 'USD', amount: answer.cost.amount } : null,
      latency_ms: latency,
      trace_id: traceId,
    };
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
    authorId: v.authorId,
    commitMessage: v.commitMessage,
    inputs: v.inputs,
    outputs: v.outputs,
    tags: tags.filter((t) => t.promptId === p.id && t.versionId === v.id).map((t) => t.tag),
    createdAt: p.createdAt.toISOString(),
  };
}
