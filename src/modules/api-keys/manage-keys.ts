import { accessTo, allowsOnAny, definePolicy, type Principal } from '../../platform/auth/index.ts';
import { forbidden, notFound } from '../../platform/errors.ts';
import { mintToken } from '../../platform/tokens.ts';
import type { ApiKeysContext } from './context.ts';
import { emitKeyEvent } from './key-events.ts';
import { keyToMint } from './mint-key.ts';
import { keyView, type ApiKeyView } from './presenters.ts';
import * as store from './store.ts';
import type { CreateKeyInput } from './types.ts';

/**
 * Admins (apiKeys:manage, which a readonly key does not hold) see and revoke every key of the
 * organization; others see their own keys with apiKeys:view and revoke them with apiKeys:delete.
 */
const KEY_POLICY = definePolicy({
  see: 'view',
  actions: {
    view: { any: 'apiKeys:manage', own: 'apiKeys:view' },
    revoke: { any: 'apiKeys:manage', own: 'apiKeys:delete' },
  },
});
type KeyAction = keyof typeof KEY_POLICY.actions;

export async function createKey(ctx: ApiKeysContext, principal: Principal, input: CreateKeyInput): Promise<{ token: string; apiKey: ApiKeyView }> {
  const now = ctx.clock.now();
  const { ownerUserId, bindings } = await keyToMint(ctx.directory, principal, input, now);
  const minted = mintToken('sg-');
  const key = await ctx.db.orm.transaction(async (tx) => {
    const inserted = await store.insertKey(
      tx,
      {
        id: minted.id,
        organizationId: principal.organizationId,
        projectId: null,
        keyType: input.keyType,
        name: input.name,
        description: input.description ?? null,
        ownerUserId,
        createdByUserId: principal.userId,
        permissionMode: input.permissionMode,
        permissions: input.permissions ?? [],
        secretHash: ctx.hasher.hash(minted.secret),
        expiresAt: input.expiresAt ?? null,
        createdAt: now,
      },
      bindings,
    );
    await emitKeyEvent(tx, 'api_key.created', keyView(inserted, bindings, now), now);
    return inserted;
  });
  return { token: minted.token, apiKey: keyView(key, bindings, now) };
}
export async function listKeys(ctx: ApiKeysContext, principal: Principal): Promise<ApiKeyView[]> {
  const everyone = allowsOnAny(KEY_POLICY, caller(principal), 'view');
  if (!everyone && !principal.userId) return [];
  const rows = await store.listKeys(ctx.db.orm, principal.organizationId, everyone ? undefined : principal.userId!);
  const bindings = await store.bindingsOf(ctx.db.orm, rows.map((r) => r.id));
  const now = ctx.clock.now();
  return rows.map((r) => keyView(r, bindings.filter((b) => b.apiKeyId === r.id), now));
}
export async function getKey(ctx: ApiKeysContext, principal: Principal, id: string): Promise<ApiKeyView> {
  const row = await keyFor(ctx, principal, id, 'view');
  return keyView(row, await store.bindingsOf(ctx.db.orm, [row.id]), ctx.clock.now());
}
/** Revokes at once: the next request with the token gets 401. */
export async function revokeKey(ctx: ApiKeysContext, principal: Principal, id: string): Promise<ApiKeyView> {
  const row = await keyFor(ctx, principal, id, 'revoke');
  const now = ctx.clock.now();
  const bindings = await store.bindingsOf(ctx.db.orm, [row.id]);
  const revoked = await ctx.db.orm.transaction(async (tx) => {
    const changed = await store.revokeKey(tx, principal.organizationId, row.id, now);
    // Revoking a key already revoked changes nothing and emits nothing.
    if (changed) await emitKeyEvent(tx, 'api_key.revoked', keyView(changed, bindings, now), now);
    return changed ?? row;
  });
  ctx.recentKeys.forgetAll();
  return keyView(revoked, bindings, now);
}
/** The key when the policy lets the caller do `action` to it; keys the caller may not see are 404, not 403. */
async function keyFor(ctx: ApiKeysContext, principal: Principal, id: string, action: KeyAction): Promise<store.ApiKeyRow> {
  const row = await store.findKeyInOrganization(ctx.db.orm, principal.organizationId, id);
  const access = row ? accessTo(KEY_POLICY, caller(principal), row.ownerUserId, action) : 'hidden';
  if (!row || access === 'hidden') throw notFound('api_key_not_found', `no API key ${id}`);
  if (access === 'forbidden') throw forbidden(`this key may not ${action} API key ${id}`);
  return row;
}
/** CLI: revoke any key by id, without credentials (the operator owns the machine). */
export async function revokeAsOperator(ctx: ApiKeysContext, id: string): Promise<boolean> {
  const key = await store.findKey(ctx.db.orm, id);
  if (!key) return false;
  const now = ctx.clock.now();
  const bindings = await store.bindingsOf(ctx.db.orm, [id]);
  await ctx.db.orm.transaction(async (tx) => {
    const changed = await store.revokeKey(tx, key.organizationId, id, now);
    if (changed) await emitKeyEvent(tx, 'api_key.revoked', keyView(changed, bindings, now), now);
  });
  ctx.recentKeys.forgetAll();
  return true;
}
function caller(principal: Principal) {
  return { userId: principal.userId, permissions: principal.organizationPermissions };
}
