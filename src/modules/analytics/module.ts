import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/index.ts';
import type { AnalyticsContext, AnalyticsPorts } from './context.ts';
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

export function buildAnalytics(db: Database, ports: AnalyticsPorts): Analytics {
  const ctx: AnalyticsContext = { db, ports };
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
export function registerAnalytics(app: FastifyInstance, analytics: Analytics): void {
  analyticsRoutes(app, analytics.ctx);
}
