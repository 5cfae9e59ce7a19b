export { TraceService, type TraceExtension } from './service.ts';
export type { TraceSummary } from './summary.ts';
export { traceRoutes } from './routes.ts';
export type { SearchRequest } from './schemas.ts';
export { computeCost, estimateTokens, estimateMessagesTokens, findModelPrice } from './costs/index.ts';
