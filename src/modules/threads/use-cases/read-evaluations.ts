import type { ThreadsContext } from '../context.ts';
import { presentThreadEvaluation } from '../presenters.ts';
import type { ThreadEvaluationsResponse, ThreadReviewsResponse } from '../schemas.ts';
import * as store from '../store.ts';

/** A thread's results, newest first, each with the turns it covered (the thread page). */
export async function threadEvaluations(ctx: ThreadsContext, projectId: string, threadId: string): Promise<ThreadEvaluationsResponse> {
  return { data: (await store.listForThread(ctx.db.orm, projectId, threadId, 200)).map(presentThreadEvaluation) };
}

/** A thread's reviews by people (review queues' thread items), oldest first, each with its scores and the turns it saw. */
export async function threadReviews(ctx: ThreadsContext, projectId: string, threadId: string): Promise<ThreadReviewsResponse> {
  return { data: await ctx.reviews(projectId, threadId) };
}
