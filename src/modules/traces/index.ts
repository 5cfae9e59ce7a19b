export { TraceService, type TraceExtensions } from './service.ts';
export { traceRoutes } from './routes.ts';
export type { SearchRequest } from './schemas.ts';
export { computeCost, estimateTokens, estimateMessagesTokens, findModelPrice } from './costs/index.ts';
