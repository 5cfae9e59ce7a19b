import type { SpyglassModule } from '../../platform/module.ts';
import type { Database } from '../../db/index.ts';
import { scoresRelation, threadScoreBuckets, thumbsRelation } from '../annotations/index.ts';
import { evaluationResultsRelation, verdictsRelation } from '../evaluators/index.ts';
import { threadResultBuckets } from '../threads/index.ts';
import { topicOfTracesRelation } from '../topics/index.ts';
import type { Traces } from '../traces/index.ts';
import type { AnalyticsContext } from './context.ts';
import { periodEvaluations, periodSums, periodValues, windowEvaluations, windowScores, windowSums, windowValues } from './periods.ts';
import { analyticsRoutes } from './routes.ts';
import { timeseries } from './timeseries.ts';

type ProjectRead<F> = F extends (ctx: AnalyticsContext, scope: { projectId: string }, ...rest: infer A) => infer R ? (projectId: string, ...rest: A) => R : never;

/** What the analytics module offers the others (dashboards, alerts, reports, topics): reads of one project's traces. */
export interface Analytics {
  ctx: AnalyticsContext;
  timeseries: ProjectRead<typeof timeseries>;
  periodSums: ProjectRead<typeof periodSums>;
  windowSums: ProjectRead<typeof windowSums>;
  periodValues: ProjectRead<typeof periodValues>;
  windowValues: ProjectRead<typeof windowValues>;
  periodEvaluations: ProjectRead<typeof periodEvaluations>;
  windowEvaluations: ProjectRead<typeof windowEvaluations>;
  windowScores: ProjectRead<typeof windowScores>;
}

/** What analytics takes from the app: its database and the traces module (the statements over trace summaries). */
export interface AnalyticsNeeds {
  db: Database;
  traces: Pick<Traces, 'aggregates'>;
}

/**
 * The analytics module over its needs: other modules' rows come as the typed relations their
 * owners' index.ts offer (thumbs and scores: annotations; verdicts and results: evaluators;
 * topics; thread series: threads and annotations).
 */
export function buildAnalytics({ db, traces }: AnalyticsNeeds): Analytics {
  const ctx: AnalyticsContext = {
    db,
    ports: {
      traces: traces.aggregates,
      thumbs: thumbsRelation,
      verdicts: verdictsRelation,
      scores: scoresRelation,
      evaluationResults: evaluationResultsRelation,
      topics: topicOfTracesRelation,
      threadResults: threadResultBuckets,
      threadScores: threadScoreBuckets,
    },
  };
  return {
    ctx,
    timeseries: (projectId, req) => timeseries(ctx, { projectId }, req),
    periodSums: (projectId, q) => periodSums(ctx, { projectId }, q),
    windowSums: (projectId, q) => windowSums(ctx, { projectId }, q),
    periodValues: (projectId, q) => periodValues(ctx, { projectId }, q),
    windowValues: (projectId, q) => windowValues(ctx, { projectId }, q),
    periodEvaluations: (projectId, q) => periodEvaluations(ctx, { projectId }, q),
    windowEvaluations: (projectId, q) => windowEvaluations(ctx, { projectId }, q),
    windowScores: (projectId, q) => windowScores(ctx, { projectId }, q),
  };
}

/** The analytics module's one entry: its routes (no queues or schedules of its own). */
export const analyticsModule: SpyglassModule<{ analytics: Analytics }> = {
  name: 'analytics',
  register: ({ http }, { analytics }) => analyticsRoutes(http, analytics.ctx),
};
