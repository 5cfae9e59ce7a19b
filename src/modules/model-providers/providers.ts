import { AppError, badRequest, conflict, notFound } from '../../platform/errors.ts';
import { emitEvent } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import type { ModelProviderContext, OpenedProvider, Scope } from './context.ts';
import { presentProvider } from './presenters.ts';
import type { CreateProviderBody, ProviderView } from './schemas.ts';
import * as store from './store.ts';

/** The key's seal is bound to its row: a sealed key copied to another provider does not open. */
const associated = (id: string) => ['model provider api key', id];

/** The key a provider of `kind` is called with: an OpenAI-compatible server may have none (''), the others must. */
export function requireKey(kind: ProviderView['kind'], key: string | null | undefined): string {
  if (key) return key;
  if (kind === 'openai_compatible') return '';
  throw badRequest('validation_error', `body.api_key: required for a provider of kind ${kind} (only an OpenAI-compatible server may have none)`, 'body.api_key');
}

/** An OpenAI-compatible server and Azure OpenAI are reached only at the address given. */
export function requireBaseUrl(body: { kind: ProviderView['kind']; base_url?: string | null }): void {
  if ((body.kind === 'openai_compatible' || body.kind === 'azure_openai') && !body.base_url) {
    throw badRequest('validation_error', `body.base_url: required for a provider of kind ${body.kind}`, 'body.base_url');
  }
}

export async function listProviders(ctx: ModelProviderContext, scope: Scope): Promise<ProviderView[]> {
  return (await store.listVisible(ctx.db.orm, scope.organizationId, scope.projectId)).map(presentProvider);
}

export async function createProvider(ctx: ModelProviderContext, scope: Scope, body: CreateProviderBody): Promise<ProviderView> {
  requireBaseUrl(body);
  const apiKey = requireKey(body.kind, body.api_key);
  const id = newId('mp');
  // A server without authentication has no key: an empty one is sealed, so every provider row is alike.
  const sealed = ctx.keyring.seal(apiKey, associated(id));
  const now = ctx.clock.now();
  const row = await ctx.db.orm.transaction(async (tx) => {
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
  ctx.resolved.clear();
  if (!row) {
    throw conflict('provider_name_taken', `body.name: a model provider named ${body.name} already exists ${body.scope === 'organization' ? 'in this organization' : 'in this project'}`, 'body.name');
  }
  return presentProvider(row);
}

export async function removeProvider(ctx: ModelProviderContext, scope: Scope, id: string): Promise<{ id: string; deleted: true }> {
  const row = await findProvider(ctx, scope, id);
  await ctx.db.orm.transaction(async (tx) => {
    await store.deleteProvider(tx, row.id);
    await emitEvent(tx, { organizationId: scope.organizationId, projectId: row.projectId, type: 'model_provider.deleted', data: eventData(row) }, ctx.clock.now());
  });
  ctx.resolved.clear();
  return { id, deleted: true };
}

/** Seals every provider key again under the keyring's first key (`spyglass keys rotate-encryption`). */
export async function resealKeys(ctx: Pick<ModelProviderContext, 'db' | 'keyring'>): Promise<number> {
  const current = ctx.keyring.currentKeyId;
  return ctx.db.orm.transaction(async (tx) => {
    let resealed = 0;
    for (const row of await store.sealedWithOtherKeys(tx, current)) {
      const next = ctx.keyring.seal(ctx.keyring.open({ keyId: row.keyId, sealed: row.keySealed }, associated(row.id)), associated(row.id));
      await store.replaceSealedKey(tx, row.id, { keyId: next.keyId, keySealed: next.sealed });
      resealed++;
    }
    return resealed;
  });
}

export function openProvider(ctx: ModelProviderContext, row: store.ProviderRow): OpenedProvider {
  return { name: row.name, kind: row.kind, baseUrl: row.baseUrl, apiKey: ctx.keyring.open({ keyId: row.keyId, sealed: row.keySealed }, associated(row.id)) };
}

export async function findProvider(ctx: ModelProviderContext, scope: Scope, id: string): Promise<store.ProviderRow> {
  const row = await store.findVisible(ctx.db.orm, scope.organizationId, scope.projectId, id);
  if (!row) throw notFound('model_provider_not_found', `no model provider ${id} in this project or its organization`);
  return row;
}

function eventData(row: store.ProviderRow): Record<string, unknown> {
  return { id: row.id, name: row.name, kind: row.kind, scope: row.projectId === null ? 'organization' : 'project', models: row.models };
}

/** A provider's error text without its key. */
export function redactKey(text: string, key: string): string {
  return key.length >= 4 ? text.split(key).join('[redacted]') : text;
}

/** An AppError's message without the provider's key; other errors unchanged. */
export function withoutKey(err: unknown, key: string): unknown {
  if (err instanceof AppError) return new AppError(err.status, err.code, redactKey(err.message, key), { field: err.field, meta: err.meta });
  return err;
}
