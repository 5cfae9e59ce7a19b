import type { z } from 'zod';
import { badRequest, notFound } from '../../platform/errors.ts';
import type { ExperimentsContext } from './context.ts';
import * as cstore from './comparison-store.ts';
import type { estimateSchema, evaluatorStatsSchema, groupStatsSchema, intervalMethodsSchema, runSummaryResponse } from './schemas.ts';
import { slugify } from '../../platform/slug.schema.ts';
import { derived } from './kept-run-values.ts';
import { byEvaluator, evaluatorGroup, rowGroup, type EvaluatorGroup, type EvaluatorResults, type RunValues, type TargetRows } from './run-values.ts';
import { judgesOf } from './run-judges.ts';
import { bootstrapMean, CONFIDENCE, mean, quantile, RESAMPLES, seedOf, wilson } from './statistics.ts';

type Estimate = z.output<typeof estimateSchema>;
type EvaluatorStats = z.output<typeof evaluatorStatsSchema>;
export type GroupStats = z.output<typeof groupStatsSchema>;

export const METHODS: z.output<typeof intervalMethodsSchema> = {
  confidence: CONFIDENCE,
  resamples: RESAMPLES,
  mean: 'percentile bootstrap of the mean (totals: of the mean times the count), seeded from the experiment, run, group and statistic; past 2,000 values the normal interval of the mean',
  rate: 'Wilson score interval',
  percentile: 'distribution-free order-statistic interval (binomial ranks, normal approximation)',
  difference: 'paired percentile bootstrap over the rows both runs hold, one seed per comparison (the experiment and both run ids: the same data gives the same interval whatever the evaluator); past 2,000 pairs the normal interval of the mean difference; verdicts Holm-corrected across the evaluators compared; under 20 pairs, or pairs that all differ by the same non-zero amount, not enough data',
};

/** The experiment a slug names in the project, or 404 experiment_not_found. */
export async function experimentOf(ctx: ExperimentsContext, projectId: string, slug: string): Promise<cstore.AnalysisExperiment> {
  const experiment = await cstore.findExperiment(ctx.db.orm, projectId, slugify(slug));
  if (!experiment) throw notFound('experiment_not_found', `slug: no experiment ${slug} in this project`);
  return experiment;
}

/** The runs named, in the order named, or 404 run_not_found naming the first missing one. */
export async function runsOf(ctx: ExperimentsContext, experiment: cstore.AnalysisExperiment, runIds: string[], field: string): Promise<cstore.RunHead[]> {
  const heads = await cstore.findRunHeads(ctx.db.orm, experiment.id, runIds);
  return runIds.map((id) => {
    const head = heads.find((h) => h.runId === id);
    if (!head) throw notFound('run_not_found', `${field}: no run ${id} in experiment ${experiment.slug}`);
    return head;
  });
}

export const statusOf = (r: cstore.RunHead): 'running' | 'completed' | 'stopped' => (r.stoppedAt !== null ? 'stopped' : r.finishedAt !== null ? 'completed' : 'running');

const meanEstimate = (values: Float64Array, seed: number): Estimate | null => {
  const ci = bootstrapMean(values, seed);
  return ci && { value: mean(values), low: ci.low, high: ci.high, n: values.length };
};
const totalEstimate = (values: Float64Array, seed: number): Estimate | null => {
  const m = meanEstimate(values, seed);
  const n = values.length;
  return m && { value: m.value * n, low: m.low * n, high: m.high * n, n };
};
const rateEstimate = (k: number, n: number): Estimate | null => {
  const ci = wilson(k, n);
  return ci && { value: k / n, low: ci.low, high: ci.high, n };
};
const quantileEstimate = (sorted: Float64Array, q: number): Estimate | null => {
  const r = quantile(sorted, q);
  return r && { ...r, n: sorted.length };
};
const latencyOf = (sorted: Float64Array) => ({ p50: quantileEstimate(sorted, 0.5), p95: quantileEstimate(sorted, 0.95) });

function evaluatorStats(g: EvaluatorGroup, seed: (stat: string) => number): EvaluatorStats {
  return {
    evaluator: g.evaluator,
    name: g.name ?? g.evaluator,
    results: g.results,
    processed: g.processed,
    skipped: g.skipped,
    errors: g.errors,
    passed: g.passed,
    failed: g.failed,
    score: meanEstimate(g.scores, seed('score')),
    passRate: rateEstimate(g.ratePassed, g.rateN),
    latency: latencyOf(g.durations),
    cost: totalEstimate(g.costs, seed('cost')),
  };
}

/** The statistics of some of a run's rows and results (one target's, or all of them). */
function groupStats(experimentId: string, runId: string, key: string, targetId: string | null, name: string, rows: TargetRows[], evaluators: EvaluatorResults[][]): GroupStats {
  const seed = (evaluator: string, stat: string) => seedOf(experimentId, runId, key, evaluator, stat);
  const g = rowGroup(rows);
  return {
    targetId,
    name,
    rows: g.rows,
    errors: g.errors,
    errorRate: rateEstimate(g.errors, g.rows),
    latency: latencyOf(g.durations),
    cost: totalEstimate(g.costs, seed('', 'cost')),
    evaluators: evaluators.map((parts) => evaluatorStats(evaluatorGroup(parts), (stat) => seed(parts[0].evaluator, stat))),
  };
}

function statisticsOf(experimentId: string, head: cstore.RunHead, values: RunValues, perTarget: boolean): { overall: GroupStats; targets: GroupStats[] } {
  const overall = groupStats(experimentId, head.runId, '\u0001all', null, 'All rows', values.rows, byEvaluator(values));
  if (!perTarget) return { overall, targets: [] };
  const keys = [...new Set([...values.rows, ...values.evaluators].map((g) => g.targetId))].sort();
  const nameOf = (key: string) => (key === '' ? 'No target' : (head.targets.find((t) => t.id === key)?.name ?? key));
  // One target holds every row: its statistics are the overall ones (the same values), not computed twice.
  if (keys.length === 1) return { overall, targets: [{ ...overall, targetId: keys[0] || null, name: nameOf(keys[0]) }] };
  return {
    overall,
    targets: keys.map((key) =>
      groupStats(
        experimentId,
        head.runId,
        key,
        key || null,
        nameOf(key),
        values.rows.filter((r) => r.targetId === key),
        byEvaluator(values, key),
      ),
    ),
  };
}

/**
 * A run's statistics overall, and per target when `perTarget`: computed from the run's values
 * once per results version (kept-run-values.ts).
 */
export function runStatistics(ctx: ExperimentsContext, experimentId: string, head: cstore.RunHead, perTarget: boolean): Promise<{ overall: GroupStats; targets: GroupStats[] }> {
  return derived(ctx.db.orm, experimentId, head, `statistics:${perTarget}`, (values) => statisticsOf(experimentId, head, values, perTarget));
}

/** GET /api/experiments/{slug}/runs/{runId}/summary */
export async function runSummary(ctx: ExperimentsContext, projectId: string, slug: string, runId: string): Promise<z.output<typeof runSummaryResponse>> {
  const experiment = await experimentOf(ctx, projectId, slug);
  const [head] = await runsOf(ctx, experiment, [runId], 'runId');
  const stats = await runStatistics(ctx, experiment.id, head, true);
  return {
    experimentId: experiment.id,
    experimentSlug: experiment.slug,
    runId,
    status: statusOf(head),
    createdAt: head.createdAt,
    isBaseline: experiment.baselineRunId === runId,
    methods: METHODS,
    overall: stats.overall,
    targets: stats.targets,
    judges: await judgesOf(
      ctx.db.orm,
      experiment.id,
      [runId],
      stats.overall.evaluators.map((e) => e.evaluator),
    ),
  };
}

/** Comma-separated ids: trimmed, de-duplicated, none empty. */
export function idList(value: string | undefined, field: string): string[] {
  if (value === undefined) return [];
  const ids = [...new Set(value.split(',').map((s) => s.trim()))];
  if (ids.some((id) => id === '' || id.length > 255)) throw badRequest('validation_error', `${field}: a comma-separated list of ids (1..255 characters each)`, field);
  return ids;
}
