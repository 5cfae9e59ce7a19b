import { z } from 'zod';
import { annotationSchema, threadReviewSchema } from '../annotations/schemas.ts';
import { scoreInput } from '../annotations/scores.schema.ts';
import { traceSearchSchema } from '../traces/schemas.ts';

const TRACE_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const traceId = z.string().regex(TRACE_ID, 'a trace id is 1..128 letters, digits or _ . : -');

export const queueParams = z.object({ id: z.string().min(1).max(128).describe('queue id') });
export const itemParams = queueParams.extend({ itemId: z.string().min(1).max(128).describe('item id') });

const name = z.string().trim().min(1).max(100);
const description = z.string().max(2000).nullish();
// A queue without a score would collect reviews that say nothing: at least one is asked for.
const scoreConfigIds = z
  .array(z.string().min(1).max(128))
  .min(1, 'choose at least one score for reviewers to fill in (GET /api/score-configs)')
  .max(20)
  .describe('the score configs reviewers fill in (GET /api/score-configs), in the order shown; at least one');
const memberUserIds = z
  .array(z.string().min(1).max(128))
  .max(200)
  .describe("users of the organization assigned to the queue (GET /api/members); a queue with members hands items to them only");

export const createQueueBody = z.strictObject({ name, description, scoreConfigIds, memberUserIds: memberUserIds.default([]) });
export type CreateQueueBody = z.infer<typeof createQueueBody>;

export const updateQueueBody = z
  .strictObject({ name: name.optional(), description, scoreConfigIds: scoreConfigIds.optional(), memberUserIds: memberUserIds.optional() })
  .refine((b) => Object.keys(b).length > 0, { message: 'send at least one field' });
export type UpdateQueueBody = z.infer<typeof updateQueueBody>;

export const listQueuesQuery = z.object({
  mine: z.enum(['true', 'false']).optional().describe('true: only the queues the caller is assigned to'),
});

export const reviewerProgressSchema = z.object({
  reviewer: z.string().describe('a user id, or key:<id> for an API key without a user'),
  email: z.string().nullable(),
  completed: z.number().int(),
  skipped: z.number().int(),
  claimed: z.number().int().describe('items this reviewer holds now'),
});

export const progressSchema = z
  .object({
    total: z.number().int(),
    pending: z.number().int().describe('not yet done, claimed or not'),
    claimed: z.number().int().describe('pending items a reviewer holds now (claim not expired)'),
    completed: z.number().int(),
    skipped: z.number().int(),
    byReviewer: z.array(reviewerProgressSchema).describe('members first (even with nothing done), then anyone else who reviewed'),
  })
  .meta({ id: 'QueueProgress' });
export type QueueProgress = z.output<typeof progressSchema>;

export const queueSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    scoreConfigIds: z.array(z.string()),
    members: z.array(z.object({ userId: z.string(), email: z.string().nullable() })),
    progress: progressSchema,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'ReviewQueue' });
export type QueueView = z.output<typeof queueSchema>;

export const ITEM_STATUSES = ['pending', 'completed', 'skipped'] as const;
export const ITEM_SOURCES = ['traces', 'filter', 'experiment', 'monitor', 'threads'] as const;

export const itemSchema = z
  .object({
    id: z.string(),
    queueId: z.string(),
    traceId: z.string().nullable().describe('The trace to review; null for a thread item'),
    spanId: z.string().nullable().describe('null: the whole trace (or a thread item)'),
    threadId: z.string().nullable().describe('A thread item: the whole conversation (the traces sharing this thread id) is reviewed; null for a trace item'),
    source: z.enum(ITEM_SOURCES),
    status: z.enum(ITEM_STATUSES),
    claimedBy: z.string().nullable().describe('who holds it now (null once the claim expired or was released)'),
    claimExpiresAt: z.string().nullable(),
    doneBy: z.string().nullable(),
    doneAt: z.string().nullable(),
    annotationId: z.string().nullable().describe('completed items: the annotation holding the scores'),
    createdAt: z.string(),
  })
  .meta({ id: 'ReviewQueueItem' });
export type ItemView = z.output<typeof itemSchema>;

export const itemsQuery = z.object({
  status: z.enum(ITEM_STATUSES).optional(),
  doneBy: z.enum(['me']).optional().describe('me: only items the caller completed or skipped, latest first'),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
  page: z.coerce.number().int().min(1).default(1),
});

export const itemRef = z.strictObject({
  traceId,
  spanId: z.string().min(1).max(256).optional().describe('a single span of the trace to review instead of the whole trace'),
});

export const MAX_FROM_FILTER = 5000;

const threadId = z
  .string()
  .min(1)
  .max(500)
  .refine((s) => !/\p{Cc}/u.test(s), 'a thread id is 1..500 characters, no control characters');

export const addItemsBody = z.strictObject({
  items: z.array(itemRef).min(1).max(1000).optional().describe("traces or spans (the traces list's selection), 1..1000"),
  filter: traceSearchSchema
    .optional()
    .describe('every trace matching this search (as POST /api/traces/search takes it), newest first, up to `limit`'),
  threads: z.array(threadId).min(1).max(1000).optional().describe('whole threads (their ids, as POST /api/threads lists them), 1..1000: the reviewer scores the conversation'),
  limit: z.number().int().min(1).max(MAX_FROM_FILTER).default(1000).describe('with filter: at most this many traces (1..5000)'),
  experimentRun: z
    .strictObject({ experimentSlug: z.string().min(1).max(255), runId: z.string().min(1).max(255) })
    .optional()
    .describe("the traces of an experiment run's rows (rows without a trace are left out)"),
});
export type AddItemsBody = z.infer<typeof addItemsBody>;

export const addItemsResponse = z.object({
  added: z.number().int(),
  alreadyQueued: z.number().int().describe('items the queue already had (each trace or span is queued once)'),
});

export const completeItemBody = z.strictObject({
  scores: z.array(scoreInput).max(20).default([]).describe("a value for each of the queue's score configs"),
  comment: z.string().max(20_000).default(''),
  isThumbsUp: z.boolean().nullable().default(null).describe("a thumb up (true) or down (false) with the scores; omitted or null: none"),
});
export type CompleteItemBody = z.infer<typeof completeItemBody>;

export const itemResponse = z.object({ data: itemSchema });
export const nextResponse = z.object({
  data: itemSchema.nullable().describe('the item claimed (or already held) by the caller; null when nothing is left to review'),
  claimMs: z.number().int().describe('how long a claim lasts without being completed, skipped or released'),
  progress: progressSchema,
});
const threadReview = threadReviewSchema.nullable().describe('completed thread items: the review with its scores, stored against the thread');
export const itemDetailResponse = z.object({
  data: itemSchema,
  annotation: annotationSchema.nullable().describe('completed trace items: the annotation with its scores'),
  threadReview,
});
export const completeResponse = z.object({
  data: itemSchema,
  annotation: annotationSchema.nullable().describe('a trace item: the annotation made (null for a thread item)'),
  threadReview,
});
export const itemListResponse = z.object({ data: z.array(itemSchema), total: z.number().int() });
