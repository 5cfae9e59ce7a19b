export { AnnotationService, type AnnotationContext, type AnchorFilter } from './service.ts';
export type { AnnotationView } from './presenters.ts';
export { annotationRoutes } from './routes.ts';
export { annotatedTraceCondition, annotationCountsByTrace, deleteTraceAnnotations, thumbsSql } from './trace-filter.ts';
