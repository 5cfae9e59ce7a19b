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

/** Improving a judge: a new version of a custom judge run over the items an older version and people both scored. */
export const versionComparisonBody = z.strictObject({
  evaluator: z.string().min(1).max(255).describe('A custom judge, custom/<slug>'),
  version: z.number().int().min(1).describe('The version people already measured (its results on the labelled traces are the baseline)'),
  candidateVersion: z.number().int().min(1).describe('The new version, run now on the same traces'),
  scoreConfig: z.string().min(1).max(128),
  limit: z.number().int().min(1).max(500).default(200).describe('How many labelled items to run the new version on, 1..500 (default 200); each costs one model call'),
});

export const versionComparisonParams = z.object({ id: z.string().min(1).max(64) });
export const versionComparisonsQuery = z.object({ evaluator: z.string().min(1).max(255) });

const versionAgreement = z.object({
  version: z.number().int(),
  /** pass/fail and categories: the share of items where the version said what people said; numbers: the mean absolute error */
  agreement: estimateSchema.nullable(),
  kappa: estimateSchema.nullable(),
});

export const versionComparisonSchema = z
  .object({
    id: z.string(),
    evaluator: z.string(),
    scoreConfig: z.object({ id: z.string(), name: z.string(), kind: z.enum(['numeric', 'boolean', 'categorical']) }).nullable(),
    baselineVersion: z.number().int(),
    candidateVersion: z.number().int(),
    limit: z.number().int(),
    status: z.enum(['running', 'done', 'failed']),
    error: z.string().nullable(),
    createdAt: z.number().int(),
    finishedAt: z.number().int().nullable(),
    /** the experiment run of the new version over the labelled items: its rows show each item's answer */
    run: z
      .object({ experimentSlug: z.string(), runId: z.string(), url: z.string().describe("The run's page") })
      .nullable()
      .describe('The experiment run whose target is the new version, its rows the labelled items (null on comparisons made before runs backed them)'),
    result: z
      .object({
        /** accuracy (pass/fail, categories; higher is better) or mean absolute error (numbers; lower is better) */
        statistic: z.enum(['accuracy', 'meanAbsoluteError']),
        /** items both versions judged */
        n: z.number().int(),
        /** items the new version gave no answer of the config's kind on (errors, a trace gone) */
        unmeasured: z.number().int(),
        baseline: versionAgreement,
        candidate: versionAgreement,
        /** the new version's statistic less the old one's, paired item by item, with its 95 % bootstrap interval */
        difference: z.object({ value: z.number(), low: z.number(), high: z.number(), pValue: z.number(), minimumDetectableEffect: z.number() }).nullable(),
        verdict: z.enum(['better', 'worse', 'no detectable difference', 'not enough data']),
        /** not enough data: the items needed */
        itemsNeeded: z.number().int().nullable(),
        /** the verdict in words */
        summary: z.string(),
        /** items where the two versions answered differently */
        changed: z.array(z.object({ traceId: z.string(), human: judgeValueSchema(), baseline: judgeValueSchema(), candidate: judgeValueSchema() })),
      })
      .nullable(),
  })
  .meta({ id: 'JudgeVersionComparison' });

function judgeValueSchema() {
  return z.union([z.number(), z.string(), z.boolean()]);
}

export const versionComparisonsResponse = z.object({ data: z.array(versionComparisonSchema) });
