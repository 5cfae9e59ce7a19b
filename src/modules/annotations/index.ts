export { AnnotationService, type AnnotationContext, type AnnotationView, type AnchorFilter } from './service.ts';
export { annotationRoutes } from './routes.ts';
export { annotatedTraceCondition, annotationCountsByTrace, deleteTraceAnnotations, thumbsSql } from './trace-filter.ts';
