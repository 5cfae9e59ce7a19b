import type { SpyglassModule } from '../../platform/module.ts';
import type { SealedKind } from '../../platform/sealed-kinds.ts';
import type { AgentCacheContext } from './context.ts';
import { resealAll, sweepExpired } from './maintenance.ts';
import { agentCacheRoutes } from './routes.ts';
import * as store from './store.ts';

/** Cached values as the key tools count them (expired ones too: they are there until the sweep). */
export const sealedCacheValues: SealedKind = {
  one: 'agent-cache value',
  many: 'agent-cache values',
  countByKey: store.sealedKeyCounts,
  reseal: ({ db, clock, keyring }) => resealAll({ db, clock, keyring }),
};
/** The key ids on cached values, for the start check (which runs before migrations). */
export const cacheValueKeyIds = store.sealedKeyIds;

/** What the agent cache offers the app: the expiry sweep. */
export interface AgentCache {
  ctx: AgentCacheContext;
  sweepExpired(): Promise<number>;
}

export function buildAgentCache(ports: AgentCacheContext): AgentCache {
  const ctx: AgentCacheContext = { ...ports };
  return { ctx, sweepExpired: () => sweepExpired(ctx) };
}

/** The agent cache's one entry: its routes and its expiry sweep (once per period across processes). */
export const agentCacheModule: SpyglassModule<{ agentCache: AgentCache }> = {
  name: 'agent-cache',
  register: ({ http, scheduler, config }, { agentCache }) => {
    agentCacheRoutes(http, agentCache.ctx);
    scheduler.every({ name: 'agent cache expiry', intervalMs: config.intervals.cacheSweepMs, once: true, run: () => agentCache.sweepExpired() });
  },
};
