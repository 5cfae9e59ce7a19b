import type { SpyglassModule } from '../../platform/module.ts';
import type { Executor, Tx } from '../../db/index.ts';
import type { Principal } from '../../platform/auth/index.ts';
import type { ApiKeysContext } from './context.ts';
import { mintInitialAdminKey, mintProjectKey, mintRecoveryAdminKey, reissueAfterHashKeyChange, type IssuedKey } from './issue-keys.ts';
import { revokeAsOperator } from './manage-keys.ts';
import { resolveKey } from './resolve-key.ts';
import { RecentKeys } from './key-cache.ts';
import { apiKeyRoutes } from './routes.ts';
import * as store from './store.ts';

/** What the api-keys module offers the app, the organizations module and the CLI. */
export interface ApiKeys {
  ctx: ApiKeysContext;
  /** Credentials -> principal. Null for malformed, unknown, revoked or expired tokens. */
  resolve(token: string, now: Date): Promise<Principal | null>;
  /** A project's key, minted in the caller's transaction (a project created or rotated, first start). */
  mintProjectKey(tx: Tx, project: { id: string; organizationId: string }, token?: string): Promise<IssuedKey>;
  mintInitialAdminKey(tx: Tx, organizationId: string, userId: string, token?: string): Promise<IssuedKey>;
  reissueAfterHashKeyChange(tx: Tx, admin: { organizationId: string; userId: string } | null): Promise<{ revoked: number; adminToken: string | null }>;
  mintRecoveryAdminKey(): Promise<string | null>;
  revokeAsOperator(id: string): Promise<boolean>;
  /** The organizations module's project-deleted listener: bindings to the project go in its transaction. */
  deleteProjectBindings(tx: Executor, projectId: string): Promise<void>;
}

export function buildApiKeys(ports: Omit<ApiKeysContext, 'recentKeys'>): ApiKeys {
  const ctx: ApiKeysContext = { ...ports, recentKeys: new RecentKeys(ports.db.changes) };
  return {
    ctx,
    resolve: (token, now) => resolveKey(ctx, token, now),
    mintProjectKey: (tx, project, token) => mintProjectKey(ctx, tx, project, token),
    mintInitialAdminKey: (tx, organizationId, userId, token) => mintInitialAdminKey(ctx, tx, organizationId, userId, token),
    reissueAfterHashKeyChange: (tx, admin) => reissueAfterHashKeyChange(ctx, tx, admin),
    mintRecoveryAdminKey: () => mintRecoveryAdminKey(ctx),
    revokeAsOperator: (id) => revokeAsOperator(ctx, id),
    deleteProjectBindings: (tx, projectId) => {
      // The project's own keys go with it (foreign key): none may be answered from memory.
      ctx.recentKeys.forgetAll();
      return store.deleteProjectBindings(tx, projectId);
    },
  };
}

/** The api-keys module's one entry: its routes. */
export const apiKeysModule: SpyglassModule<{ apiKeys: ApiKeys }> = {
  name: 'api-keys',
  register: ({ http }, { apiKeys }) => apiKeyRoutes(http, apiKeys.ctx),
};
