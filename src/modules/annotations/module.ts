import type { SpyglassModule } from '../../platform/module.ts';
import type { Database, Executor } from '../../db/index.ts';
import type { TraceExtension } from '../traces/index.ts';
import { annotatedTraceCondition, annotationCountsByTrace, deleteTraceAnnotations, scoredTraceCondition } from './trace-filter-store.ts';
import { thumbsRelation } from './store.ts';
import { scoreMeans, scoreSummariesByTrace } from './trace-filter.ts';
import { createAnnotationIn, redactedComment } from './annotate.ts';
import type { AnnotationScope, AnnotationsContext, CommentRedactor } from './context.ts';
import type { AnnotationView } from './presenters.ts';
import { getAnnotation } from './read-annotations.ts';
import { scoreConfigRoutes } from './score-config-routes.ts';
import { humanScores, listScoreConfigs, requireScoreConfigs } from './score-configs.ts';
import { annotationRoutes } from './routes.ts';

/** What the annotations module offers the review module: reading one annotation, and writing one in the review's transaction. */
export interface AnnotationService {
  get(scope: AnnotationScope, id: string): Promise<AnnotationView>;
  redactedComment: <T extends string | null | undefined>(projectId: string, comment: T) => Promise<T>;
  /** Writes an annotation with its scores and events in the caller's transaction (the comment already redacted). */
  createIn: typeof createAnnotationIn;
}

/** What it offers about score configs (review queues, judge alignment, alerts). */
export interface ScoreConfigService {
  list: (projectId: string) => ReturnType<typeof listScoreConfigs>;
  /** The configs named, in the order named, read through `db` (a transaction); a missing one is a 400 naming `field.<i>`. */
  require: (db: Executor, projectId: string, ids: string[], field: string) => ReturnType<typeof requireScoreConfigs>;
  humanScores: (projectId: string, id: string) => ReturnType<typeof humanScores>;
}

/** The module: its context, and the functions it offers the others. */
export interface Annotations {
  ctx: AnnotationsContext;
  annotations: AnnotationService;
  scoreConfigs: ScoreConfigService;
}

/** What the annotations module is given: privacy's redaction (a comment is stored as the project's privacy settings say). */
export interface AnnotationsPorts extends Omit<AnnotationsContext, 'redactor'> {
  privacy: { redactorFor(projectId: string, path: string): Promise<CommentRedactor> };
}

export function buildAnnotations({ privacy, ...rest }: AnnotationsPorts): Annotations {
  const ctx: AnnotationsContext = { ...rest, redactor: (projectId, path) => privacy.redactorFor(projectId, path) };
  return {
    ctx,
    annotations: {
      get: (scope, id) => getAnnotation(ctx, scope, id),
      redactedComment: (projectId, comment) => redactedComment(ctx, projectId, comment),
      createIn: createAnnotationIn,
    },
    scoreConfigs: {
      list: (projectId) => listScoreConfigs(ctx, { projectId }),
      require: (db, projectId, ids, field) => requireScoreConfigs(db, { projectId }, ids, field),
      humanScores: (projectId, id) => humanScores(ctx, { projectId }, id),
    },
  };
}

/** The annotations module's one entry: the annotation and score-config routes (no queues or schedules). */
export const annotationsModule: SpyglassModule<{ annotations: Annotations }> = {
  name: 'annotations',
  register: ({ http }, { annotations }) => {
    annotationRoutes(http, annotations.ctx);
    scoreConfigRoutes(http, annotations.ctx);
  },
};

/** What annotations add to traces: the `has_annotation` and `score` filters, the list's thumbs and scores, `sortByScore`; a deleted trace takes its annotations. */
export function annotationsTraceExtension(db: Database): TraceExtension {
  return {
    filterConditions: { has_annotation: annotatedTraceCondition, score: scoredTraceCondition },
    listFacts: async (reader, projectId, traceIds) => {
      const [annotations, scores] = await Promise.all([annotationCountsByTrace(reader, projectId, traceIds), scoreSummariesByTrace(reader, projectId, traceIds)]);
      return { annotations, scores };
    },
    scoreSort: (projectId, configId, field) => scoreMeans(db.orm, projectId, configId, field),
    onTracesDeleted: (tx, projectId, traceIds) => deleteTraceAnnotations(tx, projectId, traceIds),
    thumbs: thumbsRelation,
  };
}
