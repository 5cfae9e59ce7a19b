import type { Tx } from '../../db/index.ts';
import type { Principal } from '../../platform/auth/index.ts';
import { AppError } from '../../platform/errors.ts';
import { mintToken, parseToken, TOKEN_FORMAT_HINT, type TokenPrefix } from '../../platform/tokens.ts';
import type { ApiKeysContext } from './context.ts';
import { emitKeyEvent } from './key-events.ts';
import { keyView, type ApiKeyView } from './presenters.ts';
import * as store from './store.ts';
import type { Binding } from './types.ts';

/** A key just minted: its token (shown once) and the key as listed. */
export interface IssuedKey {
  token: string;
  apiKey: ApiKeyView;
}

export async function mintProjectKey(ctx: ApiKeysContext, tx: Tx, project: { id: string; organizationId: string }, token?: string): Promise<IssuedKey> {
  const now = ctx.clock.now();
  const minted = token ? { ...requireFormat(token, 'sgp-'), token } : mintToken('sgp-');
  const key = await store.insertKey(
    tx,
    {
      id: minted.id,
      organizationId: project.organizationId,
      projectId: project.id,
      keyType: 'project',
      name: 'Project API key',
      description: null,
      ownerUserId: null,
      createdByUserId: null,
      permissionMode: 'all',
      permissions: [],
      secretHash: ctx.hasher.hash(minted.secret),
      expiresAt: null,
      createdAt: now,
    },
    [],
  );
  await emitKeyEvent(tx, 'api_key.created', keyView(key, [], now), now);
  return { token: minted.token, apiKey: keyView(key, [], now) };
}
/** Another key for the project (e.g. the web app's first-run panel); the existing keys keep working. */
export async function addProjectKey(ctx: ApiKeysContext, principal: Principal, projectId: string): Promise<IssuedKey> {
  return ctx.db.orm.transaction((tx) => mintProjectKey(ctx, tx, { id: projectId, organizationId: principal.organizationId }));
}
export async function rotateProjectKey(ctx: ApiKeysContext, principal: Principal, projectId: string): Promise<IssuedKey> {
  const issued = await ctx.db.orm.transaction(async (tx) => {
    const now = ctx.clock.now();
    for (const old of await store.revokeProjectKeys(tx, projectId, now)) {
      await emitKeyEvent(tx, 'api_key.revoked', keyView(old, [], now), now);
    }
    return mintProjectKey(ctx, tx, { id: projectId, organizationId: principal.organizationId });
  });
  ctx.recentKeys.forgetAll();
  return issued;
}
/**
 * `spyglass keys replace-token-hash`: every key's stored hash was made with the key being
 * replaced and can never match again, so every live key is revoked (its holders see why
 * in the key list; webhooks get api_key.revoked) and one new admin key is minted, hashed
 * with the new key, for `admin` (the oldest organization's first ADMIN, looked up before
 * the caller's transaction: PGlite has one connection). In the caller's transaction.
 */
export async function reissueAfterHashKeyChange(ctx: ApiKeysContext, tx: Tx, admin: { organizationId: string; userId: string } | null): Promise<{ revoked: number; adminToken: string | null }> {
  const now = ctx.clock.now();
  const revoked = await store.revokeAllKeys(tx, now);
  ctx.recentKeys.forgetAll();
  const bindings = await store.bindingsOf(tx, revoked.map((k) => k.id));
  for (const key of revoked) {
    await emitKeyEvent(tx, 'api_key.revoked', keyView(key, bindings.filter((b) => b.apiKeyId === key.id), now), now);
  }
  const issued = admin ? await mintInitialAdminKey(ctx, tx, admin.organizationId, admin.userId) : null;
  return { revoked: revoked.length, adminToken: issued?.token ?? null };
}
/** CLI recovery when every admin key is lost: a new admin key for the oldest organization's first ADMIN. */
export async function mintRecoveryAdminKey(ctx: ApiKeysContext): Promise<string | null> {
  const admin = await ctx.directory.firstAdmin();
  if (!admin) return null;
  const issued = await ctx.db.orm.transaction((tx) => mintInitialAdminKey(ctx, tx, admin.organizationId, admin.userId));
  return issued.token;
}
/** The first organization admin key (first start): a personal key of the admin user with an ORGANIZATION ADMIN binding. */
export async function mintInitialAdminKey(ctx: ApiKeysContext, tx: Tx, organizationId: string, userId: string, token?: string): Promise<IssuedKey> {
  const now = ctx.clock.now();
  const minted = token ? { ...requireFormat(token, 'sg-'), token } : mintToken('sg-');
  const bindings: Binding[] = [{ role: 'ADMIN', scopeType: 'ORGANIZATION', scopeId: organizationId }];
  const key = await store.insertKey(
    tx,
    {
      id: minted.id,
      organizationId,
      projectId: null,
      keyType: 'personal',
      name: 'Initial organization admin key',
      description: 'Created at first start',
      ownerUserId: userId,
      createdByUserId: userId,
      permissionMode: 'all',
      permissions: [],
      secretHash: ctx.hasher.hash(minted.secret),
      expiresAt: null,
      createdAt: now,
    },
    bindings,
  );
  await emitKeyEvent(tx, 'api_key.created', keyView(key, bindings, now), now);
  return { token: minted.token, apiKey: keyView(key, bindings, now) };
}
function requireFormat(token: string, prefix: TokenPrefix) {
  const parsed = parseToken(token);
  if (!parsed || parsed.prefix !== prefix) {
    throw new AppError(500, 'invalid_init_key', `an initial API key must look like ${prefix}${TOKEN_FORMAT_HINT.slice(TOKEN_FORMAT_HINT.indexOf('>') + 1)}`);
  }
  return parsed;
}
