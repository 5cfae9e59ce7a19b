import type { FastifyInstance } from 'fastify';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { ThreadsContext } from './context.ts';
import { threadEvaluationsResponse, threadParams, threadReviewsResponse, threadsRequestSchema, threadsResponseSchema } from './schemas.ts';
import { listThreads } from './use-cases/list-threads.ts';
import { threadEvaluations, threadReviews } from './use-cases/read-evaluations.ts';

const tags = ['threads'];

/** Threads: the list, and the results of evaluating each as a whole. The nested error shape. */
export function threadRoutes(app: FastifyInstance, ctx: ThreadsContext) {
  routeGroup(app, { prefix: '/api/threads', errors: 'nested', tag: { name: 'threads', title: 'Threads' } }, (r) => {
    const project = projectRoute(r);
    // Threads are traces read together: no permission of their own.
    const view = { auth: { scope: 'project' as const, permission: 'traces:view' as const } };
    project.post(
      '',
      {
        config: view,
        schema: {
          tags,
          summary: 'Threads (traces sharing a thread id) with turns, duration, cost, errors, users and thread scores; filtered by the trace search, sorted and paged',
          body: threadsRequestSchema,
          response: { 200: threadsResponseSchema },
        },
      },
      (req, { projectId }) => listThreads(ctx, projectId, req.body),
    );
    project.get(
      '/:threadId/evaluations',
      {
        config: view,
        schema: { tags, summary: "A thread's evaluations as a whole (thread monitors), newest first, each with the turns it covered", params: threadParams, response: { 200: threadEvaluationsResponse } },
      },
      (req, { projectId }) => threadEvaluations(ctx, projectId, req.params.threadId),
    );
    project.get(
      '/:threadId/reviews',
      {
        config: view,
        schema: { tags, summary: "A thread's reviews by people (review queues' thread items), oldest first, each with its scores and the turns it saw", params: threadParams, response: { 200: threadReviewsResponse } },
      },
      (req, { projectId }) => threadReviews(ctx, projectId, req.params.threadId),
    );
  });
}
