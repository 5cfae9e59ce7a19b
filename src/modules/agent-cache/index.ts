export { AgentCacheService } from './service.ts';
export { agentCacheRoutes } from './routes.ts';
