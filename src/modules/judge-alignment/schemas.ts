import { z } from 'zod';

const bool = z.enum(['true', 'false']).optional();
const number = z.string().max(40).optional();

export const alignmentQuery = z.object({
  /** the judge as its results name it: a built-in evaluator (`ragas/faithfulness`) or a custom one (`custom/<slug>`) */
  evaluator: z.string().min(1).max(255),
  /** a custom judge's version; all versions together when absent */
  version: number,
  /** the human score config to measure it against (boolean, categorical or numeric) */
  scoreConfig: z.string().min(1).max(128),
  /** categorical: the categories are in order (a near miss counts less): weighted kappa */
  ordered: bool,
  /** the trust rule: the lower bound of kappa (Spearman's rho for numbers) must be at least this (default 0.6) */
  atLeast: number,
  /** the trust rule: labels needed before a judge can be trusted (default 50) */
  minimumLabels: number,
});

export const estimateSchema = z.object({ value: z.number(), low: z.number(), high: z.number(), n: z.number().int() }).meta({ id: 'AlignmentEstimate' });

export const trustSchema = z.object({
  state: z.enum(['trusted', 'not trusted', 'not enough labels']),
  rule: z.object({ statistic: z.enum(['kappa', 'accuracy', 'spearman']), atLeast: z.number(), minimumLabels: z.number().int() }),
  /** in words: what the state rests on */
  reason: z.string(),
});

export const alignmentResponse = z.object({
  evaluator: z.string(),
  version: z.number().int().nullable(),
  scoreConfig: z.object({ id: z.string(), name: z.string(), kind: z.enum(['numeric', 'boolean', 'categorical']) }),
  /** traces with both a human score and the judge's result */
  n: z.number().int(),
  trust: trustSchema,
  /** boolean and categorical: counts[human][judge] over `categories` */
  categories: z.array(z.string()).nullable(),
  confusion: z.array(z.array(z.number().int())).nullable(),
  accuracy: estimateSchema.nullable(),
  /** Cohen's kappa; quadratic-weighted when `weighted` */
  kappa: estimateSchema.nullable(),
  weighted: z.boolean(),
  truePositiveRate: estimateSchema.nullable(),
  trueNegativeRate: estimateSchema.nullable(),
  spearman: estimateSchema.nullable(),
  meanAbsoluteError: estimateSchema.nullable(),
  /** boolean: the judge's pass rate over every trace it judged, and the rate corrected for its measured errors (Rogan-Gladen) */
  passRate: z
    .object({
      judged: z.number().int(),
      passed: z.number().int(),
      raw: z.number(),
      corrected: estimateSchema.nullable(),
    })
    .nullable(),
  disagreements: z.array(
    z.object({
      traceId: z.string().describe("The trace judged; for a whole thread, the thread's last turn the judge saw"),
      threadId: z.string().optional().describe('Present when the judge and the person scored a whole thread (thread monitor, thread review)'),
      human: z.union([z.number(), z.string(), z.boolean()]),
      judge: z.union([z.number(), z.string(), z.boolean()]),
      reasoning: z.string().nullable(),
    }),
  ),
  /** disagreements beyond those listed */
  moreDisagreements: z.number().int(),
});

/** A project's trust rule: what a judge must reach before the app calls it trusted. */
export const trustRuleSchema = z
  .object({
    /** held for pass/fail and categorical judges; numeric judges are always held by Spearman's rho */
    statistic: z.enum(['kappa', 'accuracy']),
    /** the statistic's 95 % lower bound must be at least this */
    atLeast: z.number(),
    /** labels (traces both scored) needed before a judge can be trusted */
    minimumLabels: z.number().int(),
    /** false when the project never set one and the documented default applies */
    stored: z.boolean(),
  })
  .meta({ id: 'JudgeTrustRule' });

export const trustRuleBody = z.strictObject({
  statistic: z.enum(['kappa', 'accuracy']).default('kappa'),
  atLeast: z.number().min(-1).max(1),
  minimumLabels: z.number().int().min(1).max(100_000),
});

/** A judge as its results name it, with the versions that left results. */
export const judgesResponse = z.object({
  data: z.array(z.object({ evaluator: z.string(), versions: z.array(z.number().int()), results: z.number().int() })),
});

const judgeRef = {
  evaluator: z.string().min(1).max(255),
  version: z.number().int().min(1).nullable().default(null),
  scoreConfig: z.string().min(1).max(128),
};

/** Every disagreement (not only those listed) to a review queue: an existing one, or a new one by name. */
export const sendDisagreementsBody = z.strictObject({
  ...judgeRef,
  queueId: z.string().min(1).max(128).optional(),
  newQueueName: z.string().trim().min(1).max(200).optional(),
});

export const sendDisagreementsResponse = z.object({
  queue: z.object({ id: z.string(), name: z.string() }),
  added: z.number().int(),
  alreadyQueued: z.number().int(),
});

export const labelMoreQuery = z.object({
  evaluator: z.string().min(1).max(255),
  version: number,
  scoreConfig: z.string().min(1).max(128),
  /** how many traces to propose (default 20, 1..200) */
  limit: number,
});

export const labelMoreResponse = z.object({
  /** in words: why these traces come first */
  rule: z.string(),
  /** traces the judge scored that people have not labelled with this config */
  unlabelled: z.number().int(),
  data: z.array(
    z.object({
      traceId: z.string(),
      judge: z.union([z.number(), z.string(), z.boolean()]),
      score: z.number().nullable(),
      reasoning: z.string().nullable(),
    }),
  ),
});

export const judgeTrustQuery = z.object({
  evaluator: z.string().min(1).max(255),
  version: number,
  /** a raw pass count to correct (a monitor's, a run's), with `judged` */
  passed: number,
  judged: number,
});

/** A judge's trust against each human score config people labelled some of its traces with; most labels first. */
export const judgeTrustResponse = z.object({
  evaluator: z.string(),
  version: z.number().int().nullable(),
  data: z.array(
    z.object({
      scoreConfig: z.object({ id: z.string(), name: z.string(), kind: z.enum(['numeric', 'boolean', 'categorical']) }),
      n: z.number().int(),
      trust: trustSchema,
      /** the given `passed` of `judged` corrected for this judge's measured errors (pass/fail configs only) */
      corrected: estimateSchema.nullable(),
    }),
  ),
});

/** The judge run `repeats` times on the inputs of the labelled traces it scored (the first `limit`). */
export const selfConsistencyBody = z.strictObject({
  ...judgeRef,
  repeats: z.number().int().min(2).max(10).describe('How many times the judge runs on each item, 2..10'),
  limit: z.number().int().min(1).max(50).default(20).describe('How many labelled items to repeat it on, 1..50 (default 20)'),
});

const judgeValue = z.union([z.number(), z.string(), z.boolean()]);

export const selfConsistencyResponse = z.object({
  evaluator: z.string(),
  version: z.number().int().nullable(),
  scoreConfig: z.object({ id: z.string(), name: z.string(), kind: z.enum(['numeric', 'boolean', 'categorical']) }),
  repeats: z.number().int(),
  /** items the judge answered at least twice */
  items: z.number().int(),
  /** items it could not be run on twice (errors, a trace gone) */
  unmeasured: z.number().int(),
  /** the share of items whose repeats did not all agree, with its Wilson interval */
  disagreeingItems: estimateSchema.nullable(),
  /** how often two repeats of one item differ, on average over items, with a bootstrap interval over items */
  pairwiseDisagreement: estimateSchema.nullable(),
  /** the same in words */
  summary: z.string(),
  data: z.array(
    z.object({
      traceId: z.string(),
      /** the judge's answers, one per repeat that gave one */
      values: z.array(judgeValue),
      errors: z.number().int(),
      /** why the item was not measured; null when it was */
      error: z.string().nullable(),
      disagree: z.boolean().nullable(),
      pairwiseDisagreement: z.number().nullable(),
    }),
  ),
});
