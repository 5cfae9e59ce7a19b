import type { SpyglassModule } from '../../platform/module.ts';
import { createThreadReviewIn, threadReview } from '../annotations/index.ts';
import { runTraceIds } from '../experiments/index.ts';
import { THREAD_MAX_TURNS } from '../threads/index.ts';
import type { Traces } from '../traces/index.ts';
import type { ReviewDeps } from './context.ts';
import { reviewQueueRoutes } from './routes.ts';

/** What the review module is given (app.ts): annotations, traces' search and threads, and the organization's members. */
export interface ReviewPorts extends Pick<ReviewDeps, 'db' | 'clock' | 'annotations' | 'scoreConfigs'> {
  traces: Pick<Traces, 'matching' | 'threadTraceIds'>;
  /** The organizations module. */
  organizations: { members(organizationId: string): ReturnType<ReviewDeps['members']> };
}

/** The review module's context: other modules reached through their ports and index functions only. */
export function buildReview(ports: ReviewPorts): ReviewDeps {
  const { traces, organizations, ...deps } = ports;
  return {
    ...deps,
    members: (organizationId) => organizations.members(organizationId),
    matchingTraces: (projectId, search, limit) => traces.matching(projectId, search, limit),
    experimentRunTraces: (projectId, slug, runId) => runTraceIds({ db: deps.db, clock: deps.clock }, projectId, slug, runId),
    threadTraceIds: (projectId, threadId) => traces.threadTraceIds(projectId, threadId, THREAD_MAX_TURNS),
    threadReviews: {
      createIn: (tx, ctx, threadId, input, now) => createThreadReviewIn(tx, ctx, threadId, input, now),
      get: (projectId, id) => threadReview(deps.db, projectId, id),
    },
  };
}

/** The review module's one entry: its routes over its context. */
export const reviewModule: SpyglassModule<{ review: ReviewDeps }> = {
  name: 'review',
  register: ({ http }, { review }) => reviewQueueRoutes(http, review),
};
