import { PermissionSet, PROJECT_KEY_PERMISSIONS, rolePermissions, type KeyType, type Principal } from '../../platform/auth/index.ts';
import { parseToken, type TokenPrefix } from '../../platform/tokens.ts';
import { asBookkeeping } from '../../db/index.ts';
import type { ApiKeysContext } from './context.ts';
import { effectivePermissions } from './mint-key.ts';
import * as store from './store.ts';

const LAST_USED_PRECISION_MS = 60_000;

/** Credentials -> principal. Null for malformed, unknown, revoked or expired tokens. */
export async function resolveKey(ctx: ApiKeysContext, token: string, now: Date): Promise<Principal | null> {
  const parsed = parseToken(token);
  if (!parsed) return null;
  let key = ctx.recentKeys.get(parsed.id);
  if (!key) {
    const read = ctx.recentKeys.stamp();
    key = await store.findKey(ctx.db.orm, parsed.id);
    if (key) ctx.recentKeys.keep(key, read);
  }
  if (!key || !ctx.hasher.verify(parsed.secret, key.secretHash)) return null;
  if (prefixOf(key.keyType) !== parsed.prefix) return null;
  if (key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now.getTime())) return null;
  recordUse(ctx, key, now);

  if (key.keyType === 'project') {
    const perms = new PermissionSet(PROJECT_KEY_PERMISSIONS);
    return {
      keyId: key.id,
      keyType: 'project',
      organizationId: key.organizationId,
      userId: null,
      projectId: key.projectId,
      organizationPermissions: PermissionSet.none,
      projectPermissions: (projectId) => (projectId === key.projectId ? perms : PermissionSet.none),
    };
  }

  const bindings = await store.bindingsOf(ctx.db.orm, [key.id]);
  let cap: PermissionSet | null = null;
  if (key.keyType === 'personal') {
    const role = await ctx.directory.membershipRole(key.organizationId, key.ownerUserId!);
    // An owner who left the organization takes the key's access with them.
    cap = role ? rolePermissions(role) : PermissionSet.none;
  }
  const effective = (b: store.BindingRow) => effectivePermissions(b.role, key.permissionMode, key.permissions, cap);
  let orgPerms = PermissionSet.none;
  const projectPerms = new Map<string, PermissionSet>();
  for (const b of bindings) {
    if (b.scopeType === 'ORGANIZATION') orgPerms = orgPerms.union(effective(b));
    else projectPerms.set(b.scopeId, (projectPerms.get(b.scopeId) ?? PermissionSet.none).union(effective(b)));
  }
  return {
    keyId: key.id,
    keyType: key.keyType,
    organizationId: key.organizationId,
    userId: key.ownerUserId,
    projectId: null,
    organizationPermissions: orgPerms,
    projectPermissions: (projectId) => orgPerms.union(projectPerms.get(projectId) ?? PermissionSet.none),
  };
}
/**
 * "Last used" to the minute, written beside the request rather than in its path: the
 * request does not wait for it, and a failed write (an overloaded database) costs only
 * the record of this use.
 */
function recordUse(ctx: ApiKeysContext, key: store.ApiKeyRow, now: Date): void {
  if (key.lastUsedAt && now.getTime() - key.lastUsedAt.getTime() < LAST_USED_PRECISION_MS) return;
  // The process's copy of the key says so too: the next requests within the minute write nothing.
  key.lastUsedAt = now;
  // Not the client's write: its next reads need not wait for a replica to have it.
  void asBookkeeping(() => store.touchKey(ctx.db.orm, key.id, now, LAST_USED_PRECISION_MS).catch(() => undefined));
}
function prefixOf(keyType: KeyType): TokenPrefix {
  return keyType === 'project' ? 'sgp-' : 'sg-';
}
