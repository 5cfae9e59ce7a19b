export {
  EvaluationService,
  listTraceEvaluations,
  judgeResultsByTrace,
  judgeResultVersions,
  judgesWithResults,
  type JudgeResultRow,
  deleteTraceEvaluations,
  deleteEvaluationsInsertedBefore,
  monitorResults,
  monitorOutcomeCounts,
  monitorScores,
  tracesEvaluatedByMonitor,
  type CostEstimate,
  type MonitorResult,
  DEFAULT_LIMITS,
  type EvaluationLimits,
  type EvaluationOutcome,
  type EvaluatorForRuns,
} from './service.ts';
export { evaluationRoutes, GUARDRAIL_HEADER } from './routes.ts';
export { traceEvaluationSchema, evaluationResultSchema, type TraceEvaluation } from './schemas.ts';
export { catalogue, findEvaluator, EVALUATORS, type CatalogueEntry } from './catalogue.ts';
export { parseInput, runEvaluator, type RunOptions } from './runner.ts';
export type { EvaluationResult, EvaluatorContext, EvaluatorDefinition } from './types.ts';
export { evaluationChipsByTrace, evaluationResultsRelation, evaluationTraceCondition, verdictsRelation } from './trace-filter.ts';
export { catalogueResponse, evaluateBody } from './schemas.ts';
export { customEvaluatorRoutes } from './custom/routes.ts';
export { TRACE_VARIABLES } from './custom/definition.ts';
// The PII engine, for redaction at ingest (the privacy module).
export { anonymize, codePointMapper, detectPii, ENTITY_DEFAULTS, ENTITY_TYPES, type EntityType, type Finding } from './pii/index.ts';
