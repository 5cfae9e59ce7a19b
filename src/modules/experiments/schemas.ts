import { z } from 'zod';
import { scoreSummarySchema } from '../annotations/scores.schema.ts';

/** Shared by the routes, presenters and the web app: the wire shapes of docs/experiments.md. */

export const EXPERIMENT_TYPES = ['DSPY', 'BATCH_EVALUATION', 'BATCH_EVALUATION_V2', 'EVALUATIONS_V3'] as const;
export const TARGET_TYPES = ['prompt', 'agent', 'evaluator', 'workflow', 'custom'] as const;
export const EVALUATION_STATUSES = ['processed', 'skipped', 'error'] as const;
export const LOG_RESULTS_BODY_LIMIT = 20 * 1024 * 1024;
/** Below this a run timestamp is taken for seconds, not milliseconds (2001-03-03 in ms). */
export const MIN_MS_TIMESTAMP = 1e11;

const nullableString = z.string().nullish();
const nullableNumber = z.number().nullish();
/** The largest repetition index an SDK may log (a row run up to 1,000 times). */
const MAX_REPETITION_INDEX = 999;

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

/** Spyglass's own field (LangWatch's SDKs send none): which of a row's repetitions; absent or null is 0. */
const repetitionInput = z.number().int().min(0).max(MAX_REPETITION_INDEX).nullish().describe("Which of the row's repetitions this is (0, 1, ...); absent means 0");

export const resultRowInput = z.object({
  index: z.number().int().min(0),
  repetition: repetitionInput,
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
  repetition: repetitionInput,
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
export const experimentsQuery = pagingQuery.extend({
  datasetId: z.string().min(1).max(255).optional().describe('only the experiments whose setup runs on this dataset (its id): what deleting it would leave without data'),
});
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
  evaluations: z.record(
    z.string(),
    z.object({
      name: z.string(),
      averageScore: z.number().nullable(),
      averagePassed: z.number().optional(),
      judge: z.string().optional().describe("Spyglass's own: the judge a server run's evaluator ran (catalogue path or custom/<slug>)"),
      judgeVersion: z.number().int().nullable().optional().describe("Spyglass's own: the custom judge's version the run pinned"),
    }),
  ),
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

export const runSchema = z.object({
  experimentId: z.string(),
  runId: z.string(),
  name: z.string().describe("The run's name: the one given (PATCH); else a logged run's id; else, for a platform run, made of its prompts and versions, models and start time (UTC)"),
  targets: z.array(targetSchema).describe('What the run ran: per target its prompt and version, model and settings'),
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


export const resultRowSchema = z.object({
  index: z.number().int(),
  repetition: z.number().int(),
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
  repetition: z.number().int(),
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
      judge: z.string().optional().describe("Spyglass's own: the judge as its results elsewhere name it (a server run's catalogue path or custom/<slug>)"),
      judgeVersion: z.number().int().nullable().optional().describe("Spyglass's own: the custom judge's version the run pinned"),
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
  name: z.string().describe("The run's name (as in the runs list)"),
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

// ---- Reading and comparing runs (docs/experiments.md: "Reading a run", "Comparing runs") ----

export const slugParams = z.object({ slug: z.string().min(1).max(255) });
export const slugRunParams = slugParams.extend({ runId: z.string().min(1).max(255) });

/** A statistic with its 95% interval (`low`..`high`) over `n` values. */
export const estimateSchema = z.object({ value: z.number(), low: z.number(), high: z.number(), n: z.number().int() });

export const evaluatorStatsSchema = z.object({
  evaluator: z.string(),
  name: z.string(),
  /** results of every status */
  results: z.number().int(),
  processed: z.number().int(),
  skipped: z.number().int(),
  errors: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  /** mean score over processed results with a score; percentile bootstrap */
  score: estimateSchema.nullable(),
  /** share (0..1) passed among processed results with `passed` set; Wilson interval */
  passRate: estimateSchema.nullable(),
  /** the evaluator's own duration (ms) */
  latency: z.object({ p50: estimateSchema.nullable(), p95: estimateSchema.nullable() }),
  /** total of the evaluator's own cost; percentile bootstrap */
  cost: estimateSchema.nullable(),
});

export const groupStatsSchema = z.object({
  /** null: rows without a target (in `targets`), or every row (`overall`) */
  targetId: z.string().nullable(),
  name: z.string(),
  rows: z.number().int(),
  errors: z.number().int(),
  /** share of rows with an error; Wilson interval */
  errorRate: estimateSchema.nullable(),
  /** the rows' duration (ms): median and 95th percentile, order-statistic intervals */
  latency: z.object({ p50: estimateSchema.nullable(), p95: estimateSchema.nullable() }),
  /** total cost of the rows; percentile bootstrap */
  cost: estimateSchema.nullable(),
  evaluators: z.array(evaluatorStatsSchema),
});

export const intervalMethodsSchema = z.object({
  confidence: z.number(),
  resamples: z.number().int(),
  mean: z.string(),
  rate: z.string(),
  percentile: z.string(),
  difference: z.string(),
});

/** Which judge an evaluator of a run is, so its trust can be looked up (GET /api/judge-alignment/trust). */
export const runJudgeSchema = z.object({
  evaluator: z.string().describe("the evaluator as the run names it (a server run's evaluator id, or the name an SDK logged)"),
  judge: z.string().describe('the judge as its results elsewhere name it: the catalogue path or custom/<slug> a server run ran; for an SDK-logged evaluator, its own name'),
  version: z.number().int().nullable().describe("the custom judge's version the run pinned; null for built-in judges and SDK runs"),
});

export const runSummaryResponse = z.object({
  experimentId: z.string(),
  experimentSlug: z.string(),
  runId: z.string(),
  status: z.enum(['running', 'completed', 'stopped']),
  createdAt: z.number().int(),
  isBaseline: z.boolean(),
  methods: intervalMethodsSchema,
  overall: groupStatsSchema,
  targets: z.array(groupStatsSchema),
  /** each evaluator's judge (its trust and alignment are the judge's) */
  judges: z.array(runJudgeSchema),
});

/** One run's result of one evaluator on a row. */
export const rowEvaluationSchema = z.object({
  name: z.string().nullable(),
  status: z.string(),
  score: z.number().nullable(),
  passed: z.boolean().nullable(),
  label: z.string().nullable(),
  details: z.string().nullable(),
  cost: z.number().nullable(),
  duration: z.number().nullable(),
});

export const runRowSchema = resultRowSchema.extend({
  evaluations: z.record(z.string(), rowEvaluationSchema),
  scores: z.array(scoreSummarySchema).describe("Review scores of the row's trace, per score config (empty until the trace is reviewed)"),
});

const pageParam = z.string().optional();
export const runRowsQuery = z.object({
  page: pageParam,
  pageSize: pageParam,
  sortBy: z.string().max(300).optional(),
  sortDirection: z.enum(['asc', 'desc']).optional(),
  /** `<column><op><value>`, repeatable: every condition must hold */
  where: z.union([z.string().max(1000), z.array(z.string().max(1000)).max(20)]).optional(),
});

export const runRowsResponse = z.object({
  experimentSlug: z.string(),
  runId: z.string(),
  evaluators: z.array(
    z.object({ evaluator: z.string(), name: z.string(), version: z.number().int().nullable().describe("A custom evaluator's version the run ran; null for built-in ones and SDK runs") }),
  ),
  rows: z.array(runRowSchema),
  pagination: paginationSchema,
});

export const compareQuery = z.object({
  /** comma-separated run ids, 2..10 */
  runs: z.string().min(1).max(3000),
  baseline: z.string().min(1).max(255).optional(),
  /** comma-separated evaluator ids whose lower scores and pass rates are better */
  lowerIsBetter: z.string().max(3000).optional(),
  /** a difference to detect (a mean-score difference, or a pass-rate difference such as 0.05): each difference says how many rows would find it 80 % of the time */
  effect: z.string().max(40).optional(),
});

export const verdictSchema = z.enum(['better', 'worse', 'no detectable difference', 'not enough data', 'not comparable']);

/** current - baseline over the rows both runs scored, with its paired-bootstrap interval. */
export const differenceSchema = z.object({
  baseline: z.number(),
  current: z.number(),
  difference: z.number(),
  low: z.number(),
  high: z.number(),
  /** rows both runs scored */
  n: z.number().int(),
  verdict: verdictSchema,
  /** two-sided p-value of the paired bootstrap (at most 0.05 exactly when the interval excludes 0) */
  pValue: z.number(),
  /** pValue corrected (Holm) for the number of evaluators compared in this run; the verdict reads this one */
  adjustedPValue: z.number(),
  /** the smallest true difference this many rows find 80 % of the time (two-sided, 5 %); null when there is not enough data */
  minimumDetectableEffect: z.number().nullable(),
  /** why the verdict is "not enough data": fewer rows than the minimum, or every row differs by the same amount (no spread to measure) */
  notEnoughData: z.enum(['too few rows', 'no spread']).nullable(),
  /** rows needed: for `effect` when the query names one (80 % power), else the minimum when there are too few; null otherwise */
  rowsNeeded: z.number().int().nullable(),
});

export const evaluatorComparisonSchema = z.object({
  evaluator: z.string(),
  name: z.string(),
  higherIsBetter: z.boolean(),
  /** which difference decides `verdict`: the pass rate when both runs have pass/fail results on shared rows, else the score */
  decidedBy: z.enum(['passRate', 'score']).nullable(),
  verdict: verdictSchema,
  score: differenceSchema.nullable(),
  passRate: differenceSchema.nullable(),
  /** rows that passed in the baseline and fail (or error) in this run */
  regressions: z.number().int(),
  /** rows that failed (or errored) in the baseline and pass in this run */
  improvements: z.number().int(),
  /**
   * When either run repeated its rows: the deciding difference's repetitions averaged within each
   * row before pairing (score and passRate above are then over rows, not tries), and its spread
   * split into the noise from one try to the next (within rows) and how much rows truly differ
   * (between rows). Null when neither run has repetitions.
   */
  repetitions: z
    .object({
      /** tries per row, on average over the compared rows */
      baseline: z.number(),
      current: z.number(),
      /** rows compared */
      rows: z.number().int(),
      /** standard deviation of a row's tries of the difference around the row's own mean: the application's and the judge's noise */
      withinRowSd: z.number(),
      /** standard deviation of the rows' true differences, net of that noise */
      betweenRowSd: z.number(),
      /** the same in words */
      summary: z.string(),
    })
    .nullable(),
});

export const runComparisonSchema = z.object({
  runId: z.string(),
  baselineRunId: z.string(),
  /** row keys (index, target) both runs hold (a row repeated counts once) */
  sharedRows: z.number().int(),
  /** how the verdicts of this run's evaluators are corrected for being several: Holm over `compared` tests */
  correction: z.object({ method: z.literal('holm'), compared: z.number().int() }),
  /** fewer shared rows than this give "not enough data" */
  minimumRows: z.number().int(),
  evaluators: z.array(evaluatorComparisonSchema),
});

export const compareResponse = z.object({
  experimentId: z.string(),
  experimentSlug: z.string(),
  baselineRunId: z.string(),
  /** the experiment's stored baseline run, when one is marked */
  experimentBaselineRunId: z.string().nullable(),
  methods: intervalMethodsSchema,
  runs: z.array(
    z.object({
      runId: z.string(),
      status: z.enum(['running', 'completed', 'stopped']),
      createdAt: z.number().int(),
      overall: groupStatsSchema,
    }),
  ),
  comparisons: z.array(runComparisonSchema),
  /** each compared evaluator's judge (its trust and alignment are the judge's) */
  judges: z.array(runJudgeSchema),
});

export const compareRowsQuery = z.object({ runs: z.string().min(1).max(3000), page: pageParam, pageSize: pageParam, targetId: z.string().max(255).optional() });

/** One run's side of a compared row; null when the run has no such row. */
export const compareCellSchema = z.object({
  runId: z.string(),
  predicted: z.record(z.string(), z.unknown()).nullable(),
  cost: z.number().nullable(),
  duration: z.number().nullable(),
  error: z.string().nullable(),
  traceId: z.string().nullable(),
  evaluations: z.record(z.string(), rowEvaluationSchema),
});

export const compareRowsResponse = z.object({
  experimentSlug: z.string(),
  runIds: z.array(z.string()),
  evaluators: z.array(z.object({ evaluator: z.string(), name: z.string() })),
  rows: z.array(
    z.object({
      index: z.number().int(),
      targetId: z.string().nullable(),
      /** the dataset row, from the first listed run that holds it */
      entry: z.record(z.string(), z.unknown()),
      /** one per run of `runIds`, in that order */
      cells: z.array(compareCellSchema.nullable()),
    }),
  ),
  pagination: paginationSchema,
});

export const regressionsQuery = z.object({
  /** two run ids: baseline,current */
  runs: z.string().min(1).max(600),
  baseline: z.string().min(1).max(255).optional(),
  evaluator: z.string().max(255).optional(),
  direction: z.enum(['regressed', 'improved']).optional(),
  page: pageParam,
  pageSize: pageParam,
});

const flipSideSchema = z.object({
  status: z.string(),
  score: z.number().nullable(),
  passed: z.boolean().nullable(),
  label: z.string().nullable(),
  details: z.string().nullable(),
  predicted: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  traceId: z.string().nullable(),
});

export const regressionsResponse = z.object({
  experimentSlug: z.string(),
  baselineRunId: z.string(),
  runId: z.string(),
  counts: z.object({ regressed: z.number().int(), improved: z.number().int() }),
  evaluators: z.array(z.object({ evaluator: z.string(), name: z.string(), regressed: z.number().int(), improved: z.number().int() })),
  rows: z.array(
    z.object({
      index: z.number().int(),
      targetId: z.string().nullable(),
      evaluator: z.string(),
      direction: z.enum(['regressed', 'improved']),
      entry: z.record(z.string(), z.unknown()),
      baseline: flipSideSchema,
      current: flipSideSchema,
    }),
  ),
  pagination: paginationSchema,
});

export const baselineBody = z.object({ runId: z.string().min(1).max(255).nullable() });
export const baselineResponse = z.object({ experimentSlug: z.string(), baselineRunId: z.string().nullable() });
// ---- Platform-run experiments (EVALUATIONS_V3): definition, start, stop ----

export const PLATFORM_SLUG_PARAMS = z.object({ slug: z.string().min(1).max(255) });
export const renameRunBody = z.object({
  name: z.string().trim().max(255).nullable().describe('The new name; null or empty: the default (a logged run\'s id; a platform run\'s prompts, models and start time)'),
});

export const stopParams = z.object({ slug: z.string().min(1).max(255), runId: z.string().min(1).max(255) });

/** Ids of targets and evaluators: what result rows and evaluations are keyed by. */
const cellId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, _ . - (1..64, starting with a letter or digit)');

/** Where a value comes from: `dataset.<column>`, `target.output`, `target.output.<path>` or `constant:<text>` (the text itself, the same on every row). */
export const SOURCE_PATTERN = /^(dataset\.[^\s].*|target\.output(\..+)?|constant:[\s\S]*)$/;
const source = z.string().max(2000).regex(SOURCE_PATTERN, 'dataset.<column>, target.output, target.output.<path> or constant:<text>');

const promptTarget = z.object({
  id: cellId,
  name: z.string().min(1).max(255).optional(),
  type: z.literal('prompt'),
  prompt: z.string().min(1).max(300).describe('The prompt id or handle'),
  version: z.number().int().min(1).optional().describe('A stored version; default: the newest when the run starts'),
  tag: z.string().min(1).max(64).optional().describe('The version a tag points at when the run starts (instead of version)'),
  model: z.string().min(1).max(300).optional().describe("provider/model instead of the version's model"),
  variables: z
    .record(z.string(), source)
    .optional()
    .describe("The prompt's inputs: variable name to dataset.<column> or constant:<text>; default: the column of the same name"),
});

const httpTarget = z.object({
  id: cellId,
  name: z.string().min(1).max(255).optional(),
  type: z.literal('http'),
  url: z
    .string()
    .max(2000)
    .url()
    .refine((u) => /^https?:\/\//i.test(u), 'an http or https URL'),
  headers: z.record(z.string().min(1).max(200), z.string().max(8000)).optional().describe('Sent with every row (e.g. Authorization); stored encrypted and answered masked. Not sent on a PUT: the stored headers stay; a masked value as GET answered it keeps the stored value'),
  output_field: z.string().min(1).max(200).default('output').describe("The answer's field holding the output (a dotted path); `.` for the whole answer"),
  timeout_ms: z.number().int().min(100).max(300_000).default(30_000),
});

export const targetDefinition = z.discriminatedUnion('type', [promptTarget, httpTarget]);
export type TargetDefinition = z.output<typeof targetDefinition>;

export const evaluatorDefinition = z.object({
  id: cellId,
  evaluator: z.string().min(1).max(200).describe('A catalogue path (GET /api/evaluations), one of its LangWatch aliases, or custom/<slug> for a custom evaluator of the project (settings.version pins a version; default: the newest when each run starts)'),
  name: z.string().min(1).max(255).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  mapping: z
    .record(z.string(), source)
    .optional()
    .describe("The evaluator's data keys: key to dataset.<column> or target.output; default: `output` from the target, other keys from the column of the same name"),
});
export type EvaluatorDefinitionInput = z.output<typeof evaluatorDefinition>;

export const MAX_CONCURRENCY = 64;
/** A server run repeats each row 1..MAX_REPETITIONS times. */
export const MAX_REPETITIONS = 10;
export const DEFAULT_CONCURRENCY = 8;

export const definitionBody = z.object({
  name: z.string().min(1).max(255).optional(),
  dataset: z
    .object({
      id: z.string().min(1).max(255).describe('The dataset slug or id'),
      version: z.number().int().min(0).optional().describe('Pin a version; default: the version current when each run starts'),
    })
    .optional(),
  targets: z.array(targetDefinition).min(1).max(10),
  evaluators: z.array(evaluatorDefinition).max(20).default([]),
  concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).default(DEFAULT_CONCURRENCY).describe('Cells run at once'),
  repetitions: z.number().int().min(1).max(MAX_REPETITIONS).default(1).describe('How many times each row runs on each target (the comparison separates the noise between tries from the differences between rows)'),
});
export type DefinitionBody = z.output<typeof definitionBody>;

const targetView = z.union([
  promptTarget.extend({ name: z.string() }),
  httpTarget.extend({ name: z.string() }),
]);

export const definitionResponse = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string().nullable(),
  type: z.literal('EVALUATIONS_V3'),
  dataset: z
    .object({
      id: z.string(),
      slug: z.string(),
      name: z.string(),
      version: z.number().int().nullable(),
      deleted: z.boolean().describe('true when the dataset has been deleted since: runs cannot start until another is chosen'),
    })
    .nullable(),
  targets: z.array(targetView),
  evaluators: z.array(
    evaluatorDefinition.extend({ evaluator: z.string().describe('The catalogue path'), name: z.string(), settings: z.record(z.string(), z.unknown()), mapping: z.record(z.string(), z.string()) }),
  ),
  concurrency: z.number().int(),
  repetitions: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const startRunBody = z
  .object({
    data: z.array(z.record(z.string(), z.unknown())).min(1).max(10_000).optional().describe('Rows to evaluate instead of the saved dataset'),
    dataset_id: z.string().min(1).max(255).optional().describe('A saved dataset (id or slug) to evaluate instead'),
    parameters: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .optional()
      .describe('Values that override the same-named fields of every row'),
    row_indices: z.array(z.number().int().min(0)).min(1).max(10_000).optional().describe('Zero-based row positions to run'),
    concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).optional().describe("This run's concurrency instead of the definition's"),
    repetitions: z.number().int().min(1).max(MAX_REPETITIONS).optional().describe("This run's repetitions instead of the definition's"),
  })
  .nullish();
export type StartRunBody = z.output<typeof startRunBody>;

export const startRunResponse = z.object({ runId: z.string(), status: z.literal('running'), total: z.number().int(), runUrl: z.string() });
export const stopRunResponse = z.object({ runId: z.string(), status: z.enum(['running', 'completed', 'stopped', 'failed']) });
