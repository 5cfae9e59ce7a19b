export { buildAgentCache, cacheValueKeyIds, registerAgentCache, sealedCacheValues, type AgentCache } from './module.ts';
