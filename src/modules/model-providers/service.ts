import { performance } from 'node:perf_hooks';
import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Keyring } from '../../platform/crypto.ts';
import { AppError, badRequest, conflict, notFound } from '../../platform/errors.ts';
import { emitEvent } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import { presentProvider } from './presenters.ts';
import type { CreateProviderBody, DiscoverModelsBody, ModelOption, ProviderView, TestProviderResponse } from './schemas.ts';
import * as store from './store.ts';

export interface Scope {
  organizationId: string;
  projectId: string;
}

/** A provider with its key opened: handed to the evaluators for one call, never presented. */
export interface OpenedProvider {
  name: string;
  kind: ProviderView['kind'];
  apiKey: string;
  baseUrl: string | null;
}

export interface ModelProviderDeps {
  /** One tiny completion with this provider (the "test" route); throws an AppError (502, 504) when it fails. */
  probe(provider: OpenedProvider, modelId: string): Promise<{ text: string; responseModel: string }>;
  /** The model ids a provider's own /models lists; throws an AppError (502, 504) when it cannot be read. */
  listModels(provider: OpenedProvider): Promise<string[]>;
  /** The server's environment fallback: the models offered without a provider set in the app. */
  environmentModels(): string[];
}

/**
 * How long a provider looked up for a call is used again without reading it (an experiment
 * run makes hundreds of calls a second with one provider). Changes made through this process
 * apply at once; another process's change within this time.
 */
const RESOLVED_FOR_MS = 2_000;
/** Lookups remembered at most (then forgotten all at once: a cache, not a store). */
const RESOLVED_MAX = 1_000;

/** The key a provider of `kind` is called with: an OpenAI-compatible server may have none (''), the others must. */
function requireKey(kind: ProviderView['kind'], key: string | null | undefined): string {
  if (key) return key;
  if (kind === 'openai_compatible') return '';
  throw badRequest('validation_error', `body.api_key: required for a provider of kind ${kind} (only an OpenAI-compatible server may have none)`, 'body.api_key');
}

/** The key's seal is bound to its row: a sealed key copied to another provider does not open. */
const associated = (id: string) => ['model provider api key', id];

export class ModelProviderService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly keyring: Keyring,
    private readonly deps: ModelProviderDeps,
  ) {}

  /** Recent lookups of `resolve`, by organization, project and name. */
  private readonly resolved = new Map<string, { at: number; provider: Promise<OpenedProvider | null> }>();

  /** Seals every provider key again under the keyring's first key (`spyglass keys rotate-encryption`). */
  async resealKeys(): Promise<number> {
    const current = this.keyring.currentKeyId;
    this.resolved.clear();
    return this.db.orm.transaction(async (tx) => {
      let resealed = 0;
      for (const row of await store.sealedWithOtherKeys(tx, current)) {
        const next = this.keyring.seal(this.keyring.open({ keyId: row.keyId, sealed: row.keySealed }, associated(row.id)), associated(row.id));
        await store.replaceSealedKey(tx, row.id, { keyId: next.keyId, keySealed: next.sealed });
        resealed++;
      }
      return resealed;
    });
  }

  async list(scope: Scope): Promise<ProviderView[]> {
    return (await store.listVisible(this.db.orm, scope.organizationId, scope.projectId)).map(presentProvider);
  }

  async create(scope: Scope, body: CreateProviderBody): Promise<ProviderView> {
    if ((body.kind === 'openai_compatible' || body.kind === 'azure_openai') && !body.base_url) {
      throw badRequest('validation_error', `body.base_url: required for a provider of kind ${body.kind}`, 'body.base_url');
    }
    const apiKey = requireKey(body.kind, body.api_key);
    const id = newId('mp');
    // A server without authentication has no key: an empty one is sealed, so every provider row is alike.
    const sealed = this.keyring.seal(apiKey, associated(id));
    const now = this.clock.now();
    const row = await this.db.orm.transaction(async (tx) => {
      const inserted = await store.insertProvider(tx, {
        id,
        organizationId: scope.organizationId,
        projectId: body.scope === 'organization' ? null : scope.projectId,
        name: body.name,
        kind: body.kind,
        baseUrl: body.base_url ?? null,
        models: body.models,
        keyId: sealed.keyId,
        keySealed: sealed.sealed,
        keyLast4: apiKey.slice(-4),
        createdAt: now,
        updatedAt: now,
      });
      if (!inserted) return null;
      await emitEvent(tx, { organizationId: scope.organizationId, projectId: inserted.projectId, type: 'model_provider.created', data: eventData(inserted) }, now);
      return inserted;
    });
    this.resolved.clear();
    if (!row) {
      throw conflict('provider_name_taken', `body.name: a model provider named ${body.name} already exists ${body.scope === 'organization' ? 'in this organization' : 'in this project'}`, 'body.name');
    }
    return presentProvider(row);
  }

  async remove(scope: Scope, id: string): Promise<{ id: string; deleted: true }> {
    const row = await this.find(scope, id);
    await this.db.orm.transaction(async (tx) => {
      await store.deleteProvider(tx, row.id);
      await emitEvent(tx, { organizationId: scope.organizationId, projectId: row.projectId, type: 'model_provider.deleted', data: eventData(row) }, this.clock.now());
    });
    this.resolved.clear();
    return { id, deleted: true };
  }

  /** One tiny call ("Reply with OK"): whether the key, address and model work. Never throws for the provider's failure. */
  async test(scope: Scope, id: string, model?: string): Promise<TestProviderResponse> {
    const row = await this.find(scope, id);
    const modelId = model ?? row.models[0];
    if (model !== undefined && !row.models.includes(model)) {
      throw badRequest('unknown_model', `model: ${model} is not one of this provider's models (${row.models.join(', ')})`, 'model');
    }
    const provider = this.open(row);
    const started = performance.now();
    try {
      const answer = await this.deps.probe(provider, modelId);
      return { ok: true, model: `${row.name}/${modelId}`, latency_ms: Math.round(performance.now() - started), output: answer.text.slice(0, 200), error: null };
    } catch (err) {
      if (!(err instanceof AppError) || err.status < 500) throw err;
      return {
        ok: false,
        model: `${row.name}/${modelId}`,
        latency_ms: Math.round(performance.now() - started),
        output: null,
        error: { code: err.code, message: redact(err.message, provider.apiKey) },
      };
    }
  }

  /** The models a provider set in the app lists itself (its /models), to choose from. */
  async providerModels(scope: Scope, id: string): Promise<{ models: string[] }> {
    const provider = this.open(await this.find(scope, id));
    return { models: await this.listed(provider) };
  }

  /** The models a provider about to be set lists (the form's "Load models"): nothing is stored. */
  async discoverModels(body: DiscoverModelsBody): Promise<{ models: string[] }> {
    if ((body.kind === 'openai_compatible' || body.kind === 'azure_openai') && !body.base_url) {
      throw badRequest('validation_error', `body.base_url: required for a provider of kind ${body.kind}`, 'body.base_url');
    }
    const apiKey = requireKey(body.kind, body.api_key);
    return { models: await this.listed({ name: body.kind, kind: body.kind, baseUrl: body.base_url ?? null, apiKey }) };
  }

  private async listed(provider: OpenedProvider): Promise<string[]> {
    try {
      return [...new Set(await this.deps.listModels(provider))].sort();
    } catch (err) {
      if (err instanceof AppError) throw new AppError(err.status, err.code, redact(err.message, provider.apiKey), { field: err.field, meta: err.meta });
      throw err;
    }
  }

  /** Every model the project can name: its providers', its organization's, then the server environment's. */
  async models(scope: Scope): Promise<ModelOption[]> {
    const rows = await store.listVisible(this.db.orm, scope.organizationId, scope.projectId);
    const seen = new Set<string>();
    const out: ModelOption[] = [];
    for (const row of rows) {
      // A project's provider hides the organization's of the same name.
      if (seen.has(row.name)) continue;
      seen.add(row.name);
      for (const m of row.models) out.push({ model: `${row.name}/${m}`, provider: row.name, kind: row.kind, source: row.projectId === null ? 'organization' : 'project' });
    }
    if (!seen.has('openai')) {
      for (const m of this.deps.environmentModels()) out.push({ model: m, provider: 'openai', kind: 'openai', source: 'environment' });
    }
    return out;
  }

  /** The provider a model's provider name means in this project, key opened; null when none is set in the app. */
  resolve(scope: Scope, name: string): Promise<OpenedProvider | null> {
    const key = `${scope.organizationId}\u0000${scope.projectId}\u0000${name}`;
    const now = performance.now();
    const recent = this.resolved.get(key);
    if (recent && now - recent.at < RESOLVED_FOR_MS) return recent.provider;
    if (this.resolved.size >= RESOLVED_MAX) this.resolved.clear();
    const provider = store.findByName(this.db.orm, scope.organizationId, scope.projectId, name).then((row) => (row ? this.open(row) : null));
    this.resolved.set(key, { at: now, provider });
    provider.catch(() => this.resolved.delete(key));
    return provider;
  }

  private open(row: store.ProviderRow): OpenedProvider {
    return { name: row.name, kind: row.kind, baseUrl: row.baseUrl, apiKey: this.keyring.open({ keyId: row.keyId, sealed: row.keySealed }, associated(row.id)) };
  }

  private async find(scope: Scope, id: string): Promise<store.ProviderRow> {
    const row = await store.findVisible(this.db.orm, scope.organizationId, scope.projectId, id);
    if (!row) throw notFound('model_provider_not_found', `no model provider ${id} in this project or its organization`);
    return row;
  }
}

function eventData(row: store.ProviderRow): Record<string, unknown> {
  return { id: row.id, name: row.name, kind: row.kind, scope: row.projectId === null ? 'organization' : 'project', models: row.models };
}

function redact(text: string, key: string): string {
  return key.length >= 4 ? text.split(key).join('[redacted]') : text;
}
