export { buildAgentCache, registerAgentCache, type AgentCache } from './module.ts';
