import { z } from 'zod';

/** Shared by the routes, presenters and the web app: the wire shapes of docs/experiments.md. */

export const EXPERIMENT_TYPES = ['DSPY', 'BATCH_EVALUATION', 'BATCH_EVALUATION_V2', 'EVALUATIONS_V3'] as const;
export const TARGET_TYPES = ['prompt', 'agent', 'evaluator', 'workflow', 'custom'] as const;
export const EVALUATION_STATUSES = ['processed', 'skipped', 'error'] as const;
export const LOG_RESULTS_BODY_LIMIT = 20 * 1024 * 1024;
/** Below this a run timestamp is taken for seconds, not milliseconds (2001-03-03 in ms). */
export const MIN_MS_TIMESTAMP = 1e11;

const nullableString = z.string().nullish();
const nullableNumber = z.number().nullish();

export const initBody = z.object({
  experiment_type: z.enum(['DSPY', 'BATCH_EVALUATION', 'BATCH_EVALUATION_V2']),
  experiment_slug: nullableString,
  experiment_id: nullableString,
  experiment_name: nullableString,
  workflowId: nullableString,
});
export type InitBody = z.output<typeof initBody>;

export const targetInput = z.object({
  id: z.string().min(1),
  name: z.string(),
  type: z.enum(TARGET_TYPES).default('custom'),
  prompt_id: nullableString,
  prompt_version: nullableNumber,
  agent_id: nullableString,
  evaluator_id: nullableString,
  model: nullableString,
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullish(),
});

export const resultRowInput = z.object({
  index: z.number().int().min(0),
  target_id: nullableString,
  entry: z.record(z.string(), z.unknown()),
  predicted: z.record(z.string(), z.unknown()).nullish(),
  cost: nullableNumber,
  duration: nullableNumber,
  error: nullableString,
  trace_id: nullableString,
});

export const evaluationInput = z.object({
  evaluator: z.string().min(1),
  name: nullableString,
  target_id: nullableString,
  status: z.enum(EVALUATION_STATUSES),
  index: z.number().int().min(0),
  score: nullableNumber,
  label: nullableString,
  passed: z.boolean().nullish(),
  details: nullableString,
  cost: nullableNumber,
  duration: nullableNumber,
  inputs: z.record(z.string(), z.unknown()).nullish(),
});

export const logResultsBody = z.object({
  experiment_slug: nullableString,
  experiment_id: nullableString,
  run_id: z.string().min(1).max(255),
  name: nullableString,
  workflow_id: nullableString,
  workflow_version_id: nullableString,
  progress: nullableNumber,
  total: nullableNumber,
  targets: z.array(targetInput).nullish(),
  dataset: z.array(resultRowInput).nullish(),
  evaluations: z.array(evaluationInput).nullish(),
  timestamps: z
    .object({ created_at: nullableNumber, finished_at: nullableNumber, stopped_at: nullableNumber })
    .nullish(),
});
export type LogResultsBody = z.output<typeof logResultsBody>;

/** Lenient paging: values that are not positive integers fall back to the defaults. */
export const pagingQuery = z.object({ page: z.string().optional(), pageSize: z.string().optional() });
export const runsQuery = pagingQuery.extend({ experimentSlug: z.string().min(1) });
export const runQuery = z.object({ experimentSlug: z.string().min(1).optional() });
export const runParams = z.object({ runId: z.string().min(1).max(255) });

export const initResponse = z.object({ path: z.string(), slug: z.string() });
export const okResponse = z.object({ message: z.literal('ok') });

export const paginationSchema = z.object({ page: z.number().int(), pageSize: z.number().int(), totalHits: z.number().int(), hasMore: z.boolean() });

export const experimentSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string().nullable(),
  type: z.string(),
  workflowId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  runsCount: z.number().int(),
  lastRunAt: z.string().nullable(),
});
export const experimentListResponse = z.object({ experiments: z.array(experimentSchema), pagination: paginationSchema });

export const runTimestampsSchema = z.object({
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  finishedAt: z.number().int().nullable(),
  stoppedAt: z.number().int().nullable(),
});

export const runAggregateSchema = z.object({
  datasetCost: z.number().optional(),
  datasetAverageCost: z.number().optional(),
  datasetAverageDuration: z.number().optional(),
  evaluationsCost: z.number().optional(),
  evaluationsAverageCost: z.number().optional(),
  evaluationsAverageDuration: z.number().optional(),
  evaluations: z.record(z.string(), z.object({ name: z.string(), averageScore: z.number().nullable(), averagePassed: z.number().optional() })),
});

export const runSchema = z.object({
  experimentId: z.string(),
  runId: z.string(),
  workflowVersion: z.null(),
  timestamps: runTimestampsSchema,
  progress: z.number().int(),
  total: z.number().int(),
  summary: runAggregateSchema,
});
export const runListResponse = z.object({
  experimentId: z.string(),
  experimentSlug: z.string(),
  runs: z.array(runSchema),
  pagination: paginationSchema,
});

export const targetSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  promptId: z.string().nullable(),
  promptVersion: z.number().nullable(),
  agentId: z.string().nullable(),
  evaluatorId: z.string().nullable(),
  model: z.string().nullable(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullable(),
});

export const resultRowSchema = z.object({
  index: z.number().int(),
  targetId: z.string().nullable(),
  entry: z.record(z.string(), z.unknown()),
  predicted: z.record(z.string(), z.unknown()).nullable(),
  cost: z.number().nullable(),
  duration: z.number().nullable(),
  error: z.string().nullable(),
  traceId: z.string().nullable(),
});

export const evaluationSchema = z.object({
  evaluator: z.string(),
  name: z.string().nullable(),
  targetId: z.string().nullable(),
  status: z.string(),
  index: z.number().int(),
  score: z.number().nullable(),
  label: z.string().nullable(),
  passed: z.boolean().nullable(),
  details: z.string().nullable(),
  cost: z.number().nullable(),
  duration: z.number().nullable(),
  inputs: z.record(z.string(), z.unknown()).nullable(),
});

export const runResultsResponse = z.object({
  experimentId: z.string(),
  runId: z.string(),
  projectId: z.string(),
  workflowVersionId: z.string().nullable(),
  progress: z.number().int(),
  total: z.number().int(),
  targets: z.array(targetSchema).nullable(),
  dataset: z.array(resultRowSchema),
  evaluations: z.array(evaluationSchema),
  timestamps: runTimestampsSchema,
});

export const executionSummarySchema = z.object({
  runId: z.string(),
  totalCells: z.number().int(),
  completedCells: z.number().int(),
  failedCells: z.number().int(),
  duration: z.number(),
  timestamps: z.object({ startedAt: z.number().int(), finishedAt: z.number().int().optional(), stoppedAt: z.number().int().optional() }),
  targets: z.array(
    z.object({ targetId: z.string(), name: z.string(), passed: z.number().int(), failed: z.number().int(), avgLatency: z.number(), totalCost: z.number() }),
  ),
  evaluators: z.array(
    z.object({
      evaluatorId: z.string(),
      name: z.string(),
      passed: z.number().int(),
      failed: z.number().int(),
      passRate: z.number(),
      avgScore: z.number().optional(),
    }),
  ),
  totalPassed: z.number().int(),
  totalFailed: z.number().int(),
  passRate: z.number(),
  totalCost: z.number(),
  runUrl: z.string(),
});

export const runStatusResponse = z.object({
  runId: z.string(),
  status: z.enum(['pending', 'running', 'completed', 'failed', 'stopped']),
  progress: z.number().int(),
  total: z.number().int(),
  startedAt: z.number().int(),
  finishedAt: z.number().int().optional(),
  summary: executionSummarySchema.optional(),
  error: z.string().optional(),
});

export const errorSchema = z.object({
  error: z.object({ type: z.string(), code: z.string(), message: z.string(), meta: z.record(z.string(), z.unknown()).optional() }),
});
