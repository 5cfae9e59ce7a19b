import type { FastifyInstance } from 'fastify';
import type { Scheduler } from '../../platform/periodic.ts';
import type { SealedKind } from '../../platform/sealed-kinds.ts';
import type { AgentCacheContext } from './context.ts';
import { resealAll, sweepExpired } from './maintenance.ts';
import { agentCacheRoutes } from './routes.ts';
import * as store from './store.ts';

/** Cached values as the key tools count them (expired ones too: they are there until the sweep). */
export const sealedCacheValues: SealedKind = { one: 'agent-cache value', many: 'agent-cache values', countByKey: store.sealedKeyCounts };
/** The key ids on cached values, for the start check (which runs before migrations). */
export const cacheValueKeyIds = store.sealedKeyIds;

/** What the agent cache offers the app: the expiry sweep and the re-sealing of `spyglass keys rotate-encryption`. */
export interface AgentCache {
  ctx: AgentCacheContext;
  sweepExpired(): Promise<number>;
  resealAll(batchSize?: number): Promise<number>;
}

export function buildAgentCache(ports: AgentCacheContext): AgentCache {
  const ctx: AgentCacheContext = { ...ports };
  return { ctx, sweepExpired: () => sweepExpired(ctx), resealAll: (batchSize) => resealAll(ctx, batchSize) };
}

/** The agent cache's one entry: its routes and its expiry sweep (once per period across processes). */
export function registerAgentCache(app: FastifyInstance, scheduler: Scheduler, cache: AgentCache, sweepEveryMs: number): void {
  agentCacheRoutes(app, cache.ctx);
  scheduler.every({ name: 'agent cache expiry', intervalMs: sweepEveryMs, once: true, run: () => cache.sweepExpired() });
}
