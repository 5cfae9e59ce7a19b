export { buildEvaluators, evaluatorsModule } from './module.ts';
export type { EvaluationLimits, EvaluationScope, EvaluatorsContext, JudgeModels, ResultRedactor } from './context.ts';
export { evaluate, runDetached, type AnsweredResult, type EvaluationOutcome } from './use-cases/run-evaluation.ts';
export { checkMonitorEvaluator, describeForRuns, type EvaluatorForRuns } from './use-cases/describe-for-runs.ts';
export { estimateCost, type CostEstimate } from './use-cases/estimate-cost.ts';
export { resolveCustom } from './custom/manage-custom.ts';
export { evaluationsTraceExtension } from './module.ts';
export {
  listTraceEvaluations,
  judgeResultsByTrace,
  judgeResultVersions,
  judgesWithResults,
  deleteTraceEvaluations,
  deleteEvaluationsInsertedBefore,
  monitorResults,
  monitorOutcomeCounts,
  monitorScores,
  tracesEvaluatedByMonitor,
} from './use-cases/read-results.ts';
export type { JudgeResultRow } from './store.ts';
export type { MonitorResult } from './presenters.ts';
export { GUARDRAIL_HEADER } from './routes.ts';
export { traceEvaluationSchema, evaluationResultSchema, type TraceEvaluation } from './schemas.ts';
export { catalogue, findEvaluator, EVALUATORS, type CatalogueEntry } from './catalogue.ts';
export { parseInput, runEvaluator, type RunOptions } from './runner.ts';
export type { EvaluationResult, EvaluatorContext, EvaluatorDefinition } from './types.ts';
export { evaluationChipsByTrace, evaluationResultsRelation, evaluationTraceCondition, verdictsRelation } from './trace-filter-store.ts';
export { catalogueResponse, evaluateBody } from './schemas.ts';
export { TRACE_VARIABLES } from './custom/definition.ts';
// The LLM provider client, for the one calling models (the model-providers module's gateway).
export {
  completeChat,
  JudgeSession,
  listProviderModels,
  resolveChatModel,
  splitModel,
  SUPPORTED_PROVIDERS,
  type ChatCompletion,
  type ChatMessage,
  type ChatOptions,
  type ChatParameters,
  type JudgeCall,
  type ProviderConfig,
} from './llm/provider.ts';
export { EvaluatorError, MissingConfigurationError } from './errors.ts';
// The PII engine, for redaction at ingest (the privacy module).
export { anonymize, codePointMapper, detectPii, ENTITY_DEFAULTS, ENTITY_TYPES, type EntityType, type Finding } from './pii/index.ts';
