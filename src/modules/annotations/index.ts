export { AnnotationService, type AnnotationContext, type AnchorFilter } from './service.ts';
export type { AnnotationView } from './presenters.ts';
export { annotationRoutes } from './routes.ts';
export { annotatedTraceCondition, annotationCountsByTrace, deleteTraceAnnotations, scoredTraceCondition, scoreSortSql, scoresSql, scoreSummariesByTrace, thumbsSql } from './trace-filter.ts';
export { annotationSchema, createAnnotationBody, traceParams as annotationTraceParams } from './schemas.ts';
export { ScoreConfigService } from './score-configs.ts';
export { scoreConfigRoutes } from './score-config-routes.ts';
export { scoreInput, scoreSchema, scoreConfigSchema, scoreSummarySchema, type ScoreInput, type ScoreView, type ScoreConfigView, type ScoreSummary } from './scores.schema.ts';
