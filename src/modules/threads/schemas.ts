import { z } from 'zod';
// schemas.ts to schemas.ts: the web app imports these without pulling in any service code.
import { scoreSortField, searchRequestSchema, traceFilterSchema } from '../traces/schemas.ts';
import { threadReviewSchema } from '../annotations/schemas.ts';
import { scoreSummarySchema } from '../annotations/scores.schema.ts';

const dateInput = z.union([z.number().int().nonnegative(), z.iso.datetime({ offset: true })]);

export const THREAD_SORTS = ['thread_id', 'turns', 'cost', 'duration', 'errors', 'users', 'first_seen', 'last_seen'] as const;

/** Picking threads by their newest result of one thread evaluation (the threads list's `evaluation`). */
export const threadEvaluationFilterSchema = z
  .strictObject({
    name: z.string().min(1).max(200).describe("The thread evaluation's name (its thread monitor's name)"),
    passed: z.boolean().optional().describe('Its verdict: true passed, false failed'),
    status: z.enum(['processed', 'skipped', 'error']).optional(),
    min: z.number().optional().describe('Its score at least'),
    max: z.number().optional().describe('Its score at most'),
  })
  .meta({ id: 'ThreadEvaluationFilter' });
export type ThreadEvaluationFilter = z.output<typeof threadEvaluationFilterSchema>;

export const threadsRequestSchema = z
  .strictObject({
    startDate: dateInput.optional().describe('Threads with a trace started at or after (epoch ms or ISO 8601); default: all'),
    endDate: dateInput.optional().describe('Threads with a trace started at or before (epoch ms or ISO 8601)'),
    query: searchRequestSchema.shape.query,
    filters: searchRequestSchema.shape.filters.describe('The trace search filters, exactly: a thread is listed when any of its traces matches (its figures count all its traces)'),
    search: z.string().trim().max(200).optional().describe('Part of the thread id (case-insensitive)'),
    reviewScore: traceFilterSchema.shape.score
      .unwrap()
      .optional()
      .describe("Threads people scored with this config (review queues' thread items; any of their reviews): within min..max (numeric), or equal to value (boolean: true or false; categorical: a category)"),
    evaluation: threadEvaluationFilterSchema
      .optional()
      .describe("Threads whose newest result of this thread evaluation (a thread monitor's name, as `scores` name it) has this verdict, status or score"),
    sortBy: z.enum(THREAD_SORTS).default('last_seen'),
    sortByScore: scoreSortField('thread', "each thread's mean review score of it"),
    sortByEvaluation: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        "A thread evaluation's name (a thread monitor's, as `scores` name it): sort by its newest result's score on each thread (a pass 1, a fail 0), in sortDirection; threads without one, or whose newest one is an error, come last either way. Replaces sortBy and sortByScore",
      ),
    sortDirection: z.enum(['asc', 'desc']).default('desc'),
    page: z.number().int().min(1).max(100_000).default(1),
    pageSize: z.number().int().min(1).max(500).default(50),
  })
  .meta({ id: 'ThreadsRequest' });
export type ThreadsRequest = z.input<typeof threadsRequestSchema>;

const verdict = {
  status: z.enum(['processed', 'skipped', 'error']),
  passed: z.boolean().nullable(),
  score: z.number().nullable(),
  label: z.string().nullable(),
};

export const threadScoreSchema = z
  .object({
    name: z.string().describe("The monitor's name"),
    monitor_id: z.string().nullable(),
    ...verdict,
    turns: z.number().int().describe('Turns it covered (the first ones)'),
  })
  .meta({ id: 'ThreadScore' });

export const threadSchema = z
  .object({
    thread_id: z.string().describe('The web app shows it at /p/<projectId>/threads/<thread_id>'),
    turns: z.number().int().describe('Traces in the thread'),
    first_seen: z.number().int().describe('Start of its first turn, epoch ms'),
    last_seen: z.number().int().describe('Start of its last turn, epoch ms'),
    duration_ms: z.number().describe('Start of its first turn to the end of its last'),
    cost: z.number().describe('USD'),
    tokens: z.object({ prompt: z.number(), completion: z.number() }),
    errors: z.number().int().describe('Turns with an error'),
    users: z.array(z.string()).describe('Its user ids (at most 5)'),
    user_count: z.number().int(),
    scores: z.array(threadScoreSchema).describe('The newest result of each thread evaluation (thread monitors)'),
    review_scores: z.array(scoreSummarySchema).describe("People's scores of the thread (review queues' thread items), per score config"),
  })
  .meta({ id: 'Thread' });

export const threadsResponseSchema = z
  .object({
    threads: z.array(threadSchema),
    pagination: z.object({ page: z.number().int(), pageSize: z.number().int(), total: z.number().int().describe('Threads matching') }),
  })
  .meta({ id: 'ThreadsResponse' });
export type ThreadsResponse = z.output<typeof threadsResponseSchema>;
export type ThreadView = z.output<typeof threadSchema>;

export const threadParams = z.object({ threadId: z.string().min(1).max(500) });

export const threadEvaluationSchema = z
  .object({
    id: z.string(),
    thread_id: z.string(),
    monitor_id: z.string().nullable().describe('The thread monitor that ran it'),
    name: z.string(),
    evaluator: z.string(),
    evaluator_version: z.number().int().nullable().describe("The custom evaluator's version (null for built-in evaluators)"),
    ...verdict,
    details: z.string().nullable().describe("The judge's reasoning, or what went wrong"),
    cost: z.number().nullable().describe('USD'),
    covered: z
      .object({
        turns: z.number().int().describe('Turns 1..turns of the thread, as it was when evaluated'),
        trace_ids: z.array(z.string()).describe('Their traces, oldest first'),
      })
      .describe('What it judged'),
    inserted_at: z.number().int().describe('When it ran (epoch ms)'),
  })
  .meta({ id: 'ThreadEvaluation' });

export const threadEvaluationsResponse = z
  .object({ data: z.array(threadEvaluationSchema).describe('Newest first (at most 200)') })
  .meta({ id: 'ThreadEvaluations' });
export type ThreadEvaluationView = z.output<typeof threadEvaluationSchema>;
export type ThreadEvaluationsResponse = z.output<typeof threadEvaluationsResponse>;

export const threadReviewsResponse = z
  .object({ data: z.array(threadReviewSchema).describe('Oldest first') })
  .meta({ id: 'ThreadReviews' });
export type ThreadReviewsResponse = z.output<typeof threadReviewsResponse>;
