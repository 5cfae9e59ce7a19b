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
      traceId: z.string(),
      human: z.union([z.number(), z.string(), z.boolean()]),
      judge: z.union([z.number(), z.string(), z.boolean()]),
      reasoning: z.string().nullable(),
    }),
  ),
  /** disagreements beyond those listed */
  moreDisagreements: z.number().int(),
});
