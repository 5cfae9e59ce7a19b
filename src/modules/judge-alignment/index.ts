export { registerJudgeAlignment, type JudgeTrustPort } from './module.ts';
export type { ReviewQueuePort, ActingScope } from './context.ts';
export { alignmentResponse, trustSchema, judgeTrustQuery, judgeTrustResponse } from './schemas.ts';
export { deleteProjectTrustRule } from './store.ts';
