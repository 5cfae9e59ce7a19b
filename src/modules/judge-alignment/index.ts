export { buildJudgeAlignment, judgeAlignmentContext, judgeAlignmentModule, type JudgeAlignmentPorts, type JudgeTrustPort } from './module.ts';
export type { ReviewQueuePort, ActingScope, JudgeAlignmentContext, JudgeExperimentsPort } from './context.ts';
export { alignmentResponse, trustSchema, judgeTrustQuery, judgeTrustResponse } from './schemas.ts';
