export { buildAgentCache, cacheValueKeyIds, agentCacheModule, sealedCacheValues, type AgentCache } from './module.ts';
