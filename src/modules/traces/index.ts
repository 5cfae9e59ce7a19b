export { buildTraces, registerTraces, type Traces, type TracesPorts } from './module.ts';
export type { TraceExtension } from './context.ts';
export { TRACE_CONTENTS_PAGE, type TraceContents } from './reads.ts';
export type { TraceSummary } from './summary.ts';
export { OtlpGrpcServer } from './otlp-grpc.ts';
export type { SearchRequest, EvaluationChip, AnnotationCounts } from './schemas.ts';
export { canonicalModelName, computeCost, estimateTokens, estimateMessagesTokens, findModelPrice, sumCostAmounts } from './costs/index.ts';
export type { NormalizedSpan } from './ingest/index.ts';
export {
  traceFilterSchema,
  summaryFilterSchema,
  toSql as traceFilterSql,
  matches as matchesTraceFilter,
  type TraceFilter,
  type SummaryFilter,
  type EvaluationFilter,
  type ForeignFilterConditions,
  type TraceRowRef,
} from './filter.ts';
export { searchRequestSchema, searchResponseSchema, spanParams, spanSchema, traceIdParams, traceOutlineSchema, traceSearchSchema, type TraceSearch } from './schemas.ts';
export { aggregateTraces, aggregateUsers, evaluationValues, groupSums, traceValues, windowEvaluationValues, windowOf, windowScoreValues, windowTraceValues, wholePeriod, TRACE_STARTED_AT, type TraceValueColumn, type UserRow, type UserSort, type UsersQuery, type AggregateQuery, type AggregateResult, type GroupBy, type ForeignGroups, type EvaluationResultsRelation, type MetricsRow, type ScoresRelation, type ThumbsRelation, type TopicsRelation, type VerdictsRelation, type ScoreBucketRow, type ThumbsRow, type Totals, type VerdictRow } from './aggregates.ts';
export { aggregateThreads, threadIdsSql, threadTurns, type ThreadRow, type ThreadSort, type ThreadsQuery, type ThreadTurnRow } from './thread-store.ts';
export { traceIdsCondition } from './store.ts';
