import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Keyring } from '../../platform/crypto.ts';
import type { SealedKind } from '../../platform/sealed-kinds.ts';
import type { ModelProviderContext, ModelProviderPorts, OpenedProvider, Scope } from './context.ts';
import { resealKeys } from './providers.ts';
import { resolveProvider } from './resolve-model.ts';
import { modelProviderRoutes } from './routes.ts';
import * as store from './store.ts';

/** Provider keys as the key tools count them. */
export const sealedProviderKeys: SealedKind = { one: 'model provider key', many: 'model provider keys', countByKey: store.sealedKeyCounts };

/** What the model-providers module offers the others: a provider name resolved for a call, and re-sealing. */
export interface ModelProviders {
  ctx: ModelProviderContext;
  resolve(scope: Scope, name: string): Promise<OpenedProvider | null>;
  /** `spyglass keys rotate-encryption`: every key sealed again under the keyring's first key. */
  resealKeys(): Promise<number>;
}

export function buildModelProviders(ports: ModelProviderPorts & { db: Database; clock: Clock; keyring: Keyring }): ModelProviders {
  const ctx: ModelProviderContext = { ...ports, resolved: new Map() };
  return { ctx, resolve: (scope, name) => resolveProvider(ctx, scope, name), resealKeys: () => resealKeys(ctx) };
}

/** The model-providers module's one entry: its routes. */
export function registerModelProviders(app: FastifyInstance, providers: ModelProviders): void {
  modelProviderRoutes(app, providers.ctx);
}
