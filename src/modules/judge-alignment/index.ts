export { registerJudgeAlignment, type JudgeTrustPort } from './module.ts';
export { alignmentResponse, trustSchema } from './schemas.ts';
