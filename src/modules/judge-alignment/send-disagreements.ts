import type { z } from 'zod';
import { AppError, badRequest, conflict } from '../../platform/errors.ts';
import type { ActingScope, JudgeAlignmentContext } from './context.ts';
import { gatherPairs } from './measure-alignment.ts';
import type { sendDisagreementsBody, sendDisagreementsResponse } from './schemas.ts';

const field = (name: string) => `body.${name}`;

/**
 * POST /api/judge-alignment/disagreements/review: every trace where the judge and people disagree
 * (not only the 50 the alignment lists) joins a review queue in one step, an existing one or a new
 * one whose reviewers fill in the score config measured. Through the review module's use cases.
 */
export async function sendDisagreements(
  ctx: JudgeAlignmentContext,
  scope: ActingScope,
  body: z.output<typeof sendDisagreementsBody>,
): Promise<z.output<typeof sendDisagreementsResponse>> {
  if ((body.queueId === undefined) === (body.newQueueName === undefined)) {
    throw badRequest('validation_error', 'body.queueId: choose a queue, or give newQueueName for a new one (one of the two)', 'body.queueId');
  }
  if (body.queueId !== undefined && !(await ctx.review.queueExists(scope.projectId, body.queueId))) {
    throw badRequest('unknown_queue', `body.queueId: no review queue ${body.queueId} in this project`, 'body.queueId');
  }
  const { config, disagreeing } = await gatherPairs(ctx, scope.projectId, body, field);
  let queue: { id: string; name: string };
  if (body.queueId !== undefined) {
    queue = { id: body.queueId, name: await ctx.review.queueName(scope, body.queueId) };
  } else {
    try {
      queue = await ctx.review.createQueue(scope, body.newQueueName!, [config.id]);
    } catch (err) {
      if (err instanceof AppError && err.status === 409) throw conflict(err.code, `body.newQueueName: a queue named ${body.newQueueName} already exists`, 'body.newQueueName');
      throw err;
    }
  }
  const { added, alreadyQueued } = disagreeing.length ? await ctx.review.addTraces(scope, queue.id, disagreeing.map((p) => p.traceId)) : { added: 0, alreadyQueued: 0 };
  return { queue, added, alreadyQueued };
}
