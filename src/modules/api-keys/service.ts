import type { Database, Tx } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError, forbidden, notFound } from '../../platform/errors.ts';
import { mintToken, parseToken, TOKEN_FORMAT_HINT, type TokenHasher, type TokenPrefix } from '../../platform/tokens.ts';
import {
  accessTo,
  allowsOnAny,
  definePolicy,
  PermissionSet,
  PROJECT_KEY_PERMISSIONS,
  rolePermissions,
  type KeyType,
  type Principal,
} from '../../platform/auth/index.ts';
import type { ProjectKeyIssuer } from '../organizations/index.ts';
import { emitEvent } from '../../platform/events/index.ts';

export interface IssuedKey {
  token: string;
  apiKey: ApiKeyView;
}
import * as store from './store.ts';
import { effectivePermissions, keyToMint } from './mint-key.ts';
import { keyView, type ApiKeyView } from './presenters.ts';
import type { Binding, CreateKeyInput, Directory } from './types.ts';


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


const LAST_USED_PRECISION_MS = 60_000;



export class ApiKeyService implements ProjectKeyIssuer {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly hasher: TokenHasher,
    private readonly directory: () => Directory,
  ) {}

  /** Credentials -> principal. Null for malformed, unknown, revoked or expired tokens. */
  async resolve(token: string, now: Date): Promise<Principal | null> {
    const parsed = parseToken(token);
    if (!parsed) return null;
    const key = await store.findKey(this.db.orm, parsed.id);
    if (!key || !this.hasher.verify(parsed.secret, key.secretHash)) return null;
    if (prefixOf(key.keyType) !== parsed.prefix) return null;
    if (key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now.getTime())) return null;
    this.recordUse(key, now);

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

    const bindings = await store.bindingsOf(this.db.orm, [key.id]);
    let cap: PermissionSet | null = null;
    if (key.keyType === 'personal') {
      const role = await this.directory().membershipRole(key.organizationId, key.ownerUserId!);
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
  private recordUse(key: store.ApiKeyRow, now: Date): void {
    if (key.lastUsedAt && now.getTime() - key.lastUsedAt.getTime() < LAST_USED_PRECISION_MS) return;
    store.touchKey(this.db.orm, key.id, now, LAST_USED_PRECISION_MS).catch(() => undefined);
  }

  async create(principal: Principal, input: CreateKeyInput): Promise<{ token: string; apiKey: ApiKeyView }> {
    const now = this.clock.now();
    const { ownerUserId, bindings } = await keyToMint(this.directory(), principal, input, now);
    const minted = mintToken('sg-');
    const key = await this.db.orm.transaction(async (tx) => {
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
          secretHash: this.hasher.hash(minted.secret),
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


  async list(principal: Principal): Promise<ApiKeyView[]> {
    const everyone = allowsOnAny(KEY_POLICY, caller(principal), 'view');
    if (!everyone && !principal.userId) return [];
    const rows = await store.listKeys(this.db.orm, principal.organizationId, everyone ? undefined : principal.userId!);
    const bindings = await store.bindingsOf(this.db.orm, rows.map((r) => r.id));
    const now = this.clock.now();
    return rows.map((r) => keyView(r, bindings.filter((b) => b.apiKeyId === r.id), now));
  }

  async get(principal: Principal, id: string): Promise<ApiKeyView> {
    const row = await this.keyFor(principal, id, 'view');
    return keyView(row, await store.bindingsOf(this.db.orm, [row.id]), this.clock.now());
  }

  /** Revokes at once: the next request with the token gets 401. */
  async revoke(principal: Principal, id: string): Promise<ApiKeyView> {
    const row = await this.keyFor(principal, id, 'revoke');
    const now = this.clock.now();
    const bindings = await store.bindingsOf(this.db.orm, [row.id]);
    const revoked = await this.db.orm.transaction(async (tx) => {
      const changed = await store.revokeKey(tx, principal.organizationId, row.id, now);
      // Revoking a key already revoked changes nothing and emits nothing.
      if (changed) await emitKeyEvent(tx, 'api_key.revoked', keyView(changed, bindings, now), now);
      return changed ?? row;
    });
    return keyView(revoked, bindings, now);
  }

  /** The key when the policy lets the caller do `action` to it; keys the caller may not see are 404, not 403. */
  private async keyFor(principal: Principal, id: string, action: KeyAction): Promise<store.ApiKeyRow> {
    const row = await store.findKeyInOrganization(this.db.orm, principal.organizationId, id);
    const access = row ? accessTo(KEY_POLICY, caller(principal), row.ownerUserId, action) : 'hidden';
    if (!row || access === 'hidden') throw notFound('api_key_not_found', `no API key ${id}`);
    if (access === 'forbidden') throw forbidden(`this key may not ${action} API key ${id}`);
    return row;
  }

  async mintProjectKey(tx: Tx, project: { id: string; organizationId: string }, token?: string): Promise<IssuedKey> {
    const now = this.clock.now();
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
        secretHash: this.hasher.hash(minted.secret),
        expiresAt: null,
        createdAt: now,
      },
      [],
    );
    await emitKeyEvent(tx, 'api_key.created', keyView(key, [], now), now);
    return { token: minted.token, apiKey: keyView(key, [], now) };
  }

  /** Another key for the project (e.g. the web app's first-run panel); the existing keys keep working. */
  async addProjectKey(principal: Principal, projectId: string): Promise<IssuedKey> {
    return this.db.orm.transaction((tx) => this.mintProjectKey(tx, { id: projectId, organizationId: principal.organizationId }));
  }

  /** Replaces a project's key: the old one stops working in the same transaction. */

  async rotateProjectKey(principal: Principal, projectId: string): Promise<IssuedKey> {
    return this.db.orm.transaction(async (tx) => {
      const now = this.clock.now();
      for (const old of await store.revokeProjectKeys(tx, projectId, now)) {
        await emitKeyEvent(tx, 'api_key.revoked', keyView(old, [], now), now);
      }
      return this.mintProjectKey(tx, { id: projectId, organizationId: principal.organizationId });
    });
  }

  /** CLI: revoke any key by id, without credentials (the operator owns the machine). */
  async revokeAsOperator(id: string): Promise<boolean> {
    const key = await store.findKey(this.db.orm, id);
    if (!key) return false;
    const now = this.clock.now();
    const bindings = await store.bindingsOf(this.db.orm, [id]);
    await this.db.orm.transaction(async (tx) => {
      const changed = await store.revokeKey(tx, key.organizationId, id, now);
      if (changed) await emitKeyEvent(tx, 'api_key.revoked', keyView(changed, bindings, now), now);
    });
    return true;
  }

  /**
   * `spyglass keys replace-token-hash`: every key's stored hash was made with the key being
   * replaced and can never match again, so every live key is revoked (its holders see why
   * in the key list; webhooks get api_key.revoked) and one new admin key is minted, hashed
   * with the new key, for `admin` (the oldest organization's first ADMIN, looked up before
   * the caller's transaction: PGlite has one connection). In the caller's transaction.
   */
  async reissueAfterHashKeyChange(tx: Tx, admin: { organizationId: string; userId: string } | null): Promise<{ revoked: number; adminToken: string | null }> {
    const now = this.clock.now();
    const revoked = await store.revokeAllKeys(tx, now);
    const bindings = await store.bindingsOf(tx, revoked.map((k) => k.id));
    for (const key of revoked) {
      await emitKeyEvent(tx, 'api_key.revoked', keyView(key, bindings.filter((b) => b.apiKeyId === key.id), now), now);
    }
    const issued = admin ? await this.mintInitialAdminKey(tx, admin.organizationId, admin.userId) : null;
    return { revoked: revoked.length, adminToken: issued?.token ?? null };
  }

  /** CLI recovery when every admin key is lost: a new admin key for the oldest organization's first ADMIN. */
  async mintRecoveryAdminKey(): Promise<string | null> {
    const admin = await this.directory().firstAdmin();
    if (!admin) return null;
    const issued = await this.db.orm.transaction((tx) => this.mintInitialAdminKey(tx, admin.organizationId, admin.userId));
    return issued.token;
  }

  /** The first organization admin key (first start): a personal key of the admin user with an ORGANIZATION ADMIN binding. */
  async mintInitialAdminKey(tx: Tx, organizationId: string, userId: string, token?: string): Promise<IssuedKey> {
    const now = this.clock.now();
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
        secretHash: this.hasher.hash(minted.secret),
        expiresAt: null,
        createdAt: now,
      },
      bindings,
    );
    await emitKeyEvent(tx, 'api_key.created', keyView(key, bindings, now), now);
    return { token: minted.token, apiKey: keyView(key, bindings, now) };
  }
}

/**
 * api_key.created / api_key.revoked, in the caller's transaction. The data is the key as
 * GET /api/api-keys/{id} shows it (never the token). Project keys' events belong to their
 * project; organization keys' events to the organization (projectId null).
 */
function emitKeyEvent(tx: Tx, type: 'api_key.created' | 'api_key.revoked', key: ApiKeyView, now: Date) {
  return emitEvent(tx, { organizationId: key.organizationId, projectId: key.projectId, type, data: { ...key } }, now);
}


function caller(principal: Principal) {
  return { userId: principal.userId, permissions: principal.organizationPermissions };
}


function prefixOf(keyType: KeyType): TokenPrefix {
  return keyType === 'project' ? 'sgp-' : 'sg-';
}

function requireFormat(token: string, prefix: TokenPrefix) {
  const parsed = parseToken(token);
  if (!parsed || parsed.prefix !== prefix) {
    throw new AppError(500, 'invalid_init_key', `an initial API key must look like ${prefix}${TOKEN_FORMAT_HINT.slice(TOKEN_FORMAT_HINT.indexOf('>') + 1)}`);
  }
  return parsed;
}
