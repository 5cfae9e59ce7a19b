import type { FastifyInstance } from 'fastify';
import type { ReviewDeps } from './context.ts';
import { reviewQueueRoutes } from './routes.ts';

/** The review module's one entry: its routes over the context app.ts wires (annotations, traces, experiments, threads, members). */
export function registerReview(app: FastifyInstance, ctx: ReviewDeps): void {
  reviewQueueRoutes(app, ctx);
}
