import { z } from 'zod';
import { utcOffsetMinutes } from '../../platform/utc-offset.ts';
// schemas.ts to schemas.ts: the web app imports these without pulling in any service code.
import { searchRequestSchema } from '../traces/schemas.ts';

import { dateInput } from '../../platform/date-input.ts';

export const timeseriesRequestSchema = z
  .strictObject({
    startDate: dateInput.describe('Traces started at or after (epoch ms or ISO 8601)'),
    endDate: dateInput.describe('Traces started at or before (epoch ms or ISO 8601); at most 400 days after startDate'),
    interval: z
      .enum(['auto', 'minute', 'hour', 'day', 'week'])
      .default('auto')
      .describe('Bucket width (weeks start on Monday). auto: the finest giving at most 200 buckets'),
    utcOffsetMinutes,
    query: searchRequestSchema.shape.query,
    filters: searchRequestSchema.shape.filters.describe('The trace search filters, exactly'),
    groupBy: z
      .enum(['model', 'label', 'user', 'topic'])
      .nullable()
      .default(null)
      .describe('One series per model (normalized name), label, user or topic (its id, GET /api/topics): the 10 with most traces, the rest as "other"'),
  })
  .meta({ id: 'TimeseriesRequest' });
export type TimeseriesRequest = z.input<typeof timeseriesRequestSchema>;

const tokensSchema = z.object({
  prompt: z.number().describe('Prompt (input) tokens, cached ones included'),
  completion: z.number().describe('Completion (output) tokens, reasoning ones included'),
  cached: z.number().describe('Prompt tokens read from the prompt cache'),
  reasoning: z.number().describe('Completion tokens spent reasoning'),
});

export const timeseriesBucketSchema = z.object({
  start: z.number().int().describe('Bucket start, epoch ms'),
  traces: z.number().int(),
  spans: z.number().int(),
  errors: z.number().int().describe('Traces with an error'),
  error_rate: z.number().nullable().describe('errors / traces (0..1); null without traces'),
  cost: z.number().describe('USD'),
  tokens: tokensSchema,
  latency_ms: z
    .object({ p50: z.number().nullable(), p95: z.number().nullable(), p99: z.number().nullable() })
    .describe("Percentiles of the traces' total time, each within 1 % of the exact value (from a latency sketch); null without traces"),
  thumbs_up: z.number().int(),
  thumbs_down: z.number().int(),
});

/** One score config's scores over time: trace scores and people's thread scores alike. */
const scoreSeries = (counted: string) =>
  z.array(
    z.object({
      configId: z.string(),
      name: z.string().describe("The score config's name"),
      kind: z.enum(['numeric', 'boolean', 'categorical']),
      buckets: z.array(
        z.object({
          start: z.number().int(),
          count: z.number().int().describe(counted),
          mean: z.number().nullable().describe('numeric: the mean; boolean: the share of true (0..1); null without scores or when categorical'),
          counts: z.record(z.string(), z.number().int()).describe('categorical: scores per category; empty otherwise'),
        }),
      ),
    }),
  );

export const timeseriesResponseSchema = z
  .object({
    interval: z.enum(['minute', 'hour', 'day', 'week']).describe('The interval used'),
    intervalMs: z.number().int(),
    startDate: z.number().int(),
    endDate: z.number().int(),
    series: z.array(
      z.object({
        group: z.string().nullable().describe('The model, label, user or topic id; null: ungrouped, or traces without one'),
        other: z.boolean().describe('The groups beyond the first 10, together (group "other")'),
        buckets: z.array(timeseriesBucketSchema),
      }),
    ),
    evaluations: z.array(
      z.object({
        evaluator: z.string().describe("The evaluation's name (a monitor's name, or the evaluator's)"),
        type: z.string().describe('The evaluator path, e.g. pii/pii_detection'),
        buckets: z.array(z.object({ start: z.number().int(), passed: z.number().int(), failed: z.number().int(), pass_rate: z.number().nullable() })),
      }),
    ),
    scores: scoreSeries('Scores given to traces started in the bucket').describe('Review scores per score config that has any in range (a trace counts in the bucket it started in)'),
    threadEvaluations: z
      .array(
        z.object({
          name: z.string().describe("The thread monitor's name"),
          buckets: z.array(
            z.object({
              start: z.number().int(),
              evaluated: z.number().int().describe('Thread results stored in the bucket'),
              passed: z.number().int(),
              failed: z.number().int(),
              errors: z.number().int(),
              pass_rate: z.number().nullable().describe('passed / (passed + failed); null without verdicts'),
              scored: z.number().int().describe('Results that gave a score'),
              mean_score: z.number().nullable().describe('Mean of the scores given; null when none was'),
            }),
          ),
        }),
      )
      .describe(
        "Thread monitors' results (threads evaluated as a whole) per monitor name that has any in range, each in the bucket of when it ran; with query or filters, only threads with a trace they pick. Not split by groupBy",
      ),
    threadScores: scoreSeries('Thread scores given in the bucket').describe(
        "People's scores of whole threads (review queues' thread items) per score config that has any in range, each in the bucket of when it was given; with query or filters, only threads with a trace they pick. Not split by groupBy",
      ),
    totals: z.object({
      traces: z.number().int(),
      spans: z.number().int(),
      errors: z.number().int(),
      cost: z.number(),
      tokens: tokensSchema,
      thumbs_up: z.number().int(),
      thumbs_down: z.number().int(),
    }),
  })
  .meta({ id: 'TimeseriesResponse' });
export type TimeseriesResponse = z.infer<typeof timeseriesResponseSchema>;
export type TimeseriesBucket = z.infer<typeof timeseriesBucketSchema>;

export const USER_SORTS = ['user_id', 'traces', 'cost', 'tokens', 'errors', 'thumbs_up', 'thumbs_down', 'first_seen', 'last_seen'] as const;

export const usersRequestSchema = z
  .strictObject({
    startDate: dateInput.optional().describe('Traces started at or after (epoch ms or ISO 8601); default: all'),
    endDate: dateInput.optional().describe('Traces started at or before (epoch ms or ISO 8601)'),
    query: searchRequestSchema.shape.query,
    filters: searchRequestSchema.shape.filters.describe('The trace search filters, exactly: only matching traces count'),
    search: z.string().trim().max(200).optional().describe('Part of the user id (case-insensitive)'),
    sortBy: z.enum(USER_SORTS).default('last_seen'),
    sortDirection: z.enum(['asc', 'desc']).default('desc'),
    page: z.number().int().min(1).max(100_000).default(1),
    pageSize: z.number().int().min(1).max(500).default(50),
  })
  .meta({ id: 'UsersRequest' });
export type UsersRequest = z.input<typeof usersRequestSchema>;

export const endUserSchema = z.object({
  user_id: z.string(),
  traces: z.number().int(),
  cost: z.number().describe('USD'),
  tokens: z.object({ prompt: z.number(), completion: z.number() }),
  errors: z.number().int().describe('Traces with an error'),
  thumbs_up: z.number().int(),
  thumbs_down: z.number().int(),
  first_seen: z.number().int().describe('Start of their first trace, epoch ms'),
  last_seen: z.number().int().describe('Start of their last trace, epoch ms'),
});

export const usersResponseSchema = z
  .object({
    users: z.array(endUserSchema),
    pagination: z.object({ page: z.number().int(), pageSize: z.number().int(), total: z.number().int().describe('Users matching') }),
  })
  .meta({ id: 'UsersResponse' });
export type UsersResponse = z.infer<typeof usersResponseSchema>;
export type EndUser = z.infer<typeof endUserSchema>;
