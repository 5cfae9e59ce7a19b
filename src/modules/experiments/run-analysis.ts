import type { z } from 'zod';
import { badRequest, notFound } from '../../platform/errors.ts';
import type { ExperimentsContext } from './context.ts';
import * as cstore from './comparison-store.ts';
import type { estimateSchema, evaluatorStatsSchema, groupStatsSchema, intervalMethodsSchema, runSummaryResponse } from './schemas.ts';
import { slugify } from './slug.ts';
import { bootstrapMean, CONFIDENCE, mean, parseNumbers, quantile, RESAMPLES, seedOf, wilson } from './statistics.ts';
import type { StoredTarget } from './store.ts';

type Estimate = z.output<typeof estimateSchema>;
type EvaluatorStats = z.output<typeof evaluatorStatsSchema>;
export type GroupStats = z.output<typeof groupStatsSchema>;

export const METHODS: z.output<typeof intervalMethodsSchema> = {
  confidence: CONFIDENCE,
  resamples: RESAMPLES,
  mean: 'percentile bootstrap of the mean (totals: of the mean times the count), seeded from the experiment, run, group and statistic; past 2,000 values the normal interval of the mean',
  rate: 'Wilson score interval',
  percentile: 'distribution-free order-statistic interval (binomial ranks, normal approximation)',
  difference: 'paired percentile bootstrap over the rows both runs hold, seeded from the experiment, both run ids and the evaluator; past 2,000 pairs the normal interval of the mean difference',
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
const latencyOf = (durations: string | null) => {
  const sorted = parseNumbers(durations); // ascending: ORDER BY in SQL
  return { p50: quantileEstimate(sorted, 0.5), p95: quantileEstimate(sorted, 0.95) };
};

function evaluatorStats(g: cstore.EvaluatorGroupValues, seed: (stat: string) => number): EvaluatorStats {
  return {
    evaluator: g.evaluator,
    name: g.name ?? g.evaluator,
    results: g.results,
    processed: g.processed,
    skipped: g.skipped,
    errors: g.errors,
    passed: g.passed,
    failed: g.failed,
    score: meanEstimate(parseNumbers(g.scores), seed('score')),
    passRate: rateEstimate(g.ratePassed, g.rateN),
    latency: latencyOf(g.durations),
    cost: totalEstimate(parseNumbers(g.costs), seed('cost')),
  };
}

/**
 * A run's statistics overall, and per target when `perTarget`: SQL groups the values, the
 * intervals are computed here over typed arrays.
 */
export async function runStatistics(
  ctx: ExperimentsContext,
  experimentId: string,
  runId: string,
  targets: StoredTarget[],
  perTarget: boolean,
): Promise<{ overall: GroupStats; targets: GroupStats[] }> {
  const values = await cstore.runGroupValues(ctx.db.orm, experimentId, runId, perTarget);
  const group = (targetId: string | null, name: string, all: boolean): GroupStats => {
    const key = all ? '\u0001all' : (targetId ?? '');
    const seed = (evaluator: string, stat: string) => seedOf(experimentId, runId, key, evaluator, stat);
    const rowGroup = values.rows.find((r) => (all ? r.all === 1 : r.all === 0 && r.targetId === (targetId ?? '')));
    const rowsCount = rowGroup?.rows ?? 0;
    const errors = rowGroup?.errors ?? 0;
    return {
      targetId,
      name,
      rows: rowsCount,
      errors,
      errorRate: rateEstimate(errors, rowsCount),
      latency: latencyOf(rowGroup?.durations ?? null),
      cost: totalEstimate(parseNumbers(rowGroup?.costs ?? null), seed('', 'cost')),
      evaluators: values.evaluators
        .filter((e) => (all ? e.all === 1 : e.all === 0 && e.targetId === (targetId ?? '')))
        .map((e) => evaluatorStats(e, (stat) => seed(e.evaluator, stat))),
    };
  };
  const overall = group(null, 'All rows', true);
  if (!perTarget) return { overall, targets: [] };
  const keys = [...new Set([...values.rows, ...values.evaluators].filter((g) => g.all === 0).map((g) => g.targetId ?? ''))].sort();
  const nameOf = (key: string) => (key === '' ? 'No target' : (targets.find((t) => t.id === key)?.name ?? key));
  // One target holds every row: its statistics are the overall ones (the same values), not computed twice.
  if (keys.length === 1) return { overall, targets: [{ ...overall, targetId: keys[0] || null, name: nameOf(keys[0]) }] };
  return { overall, targets: keys.map((key) => group(key || null, nameOf(key), false)) };
}

/** GET /api/experiments/{slug}/runs/{runId}/summary */
export async function runSummary(ctx: ExperimentsContext, projectId: string, slug: string, runId: string): Promise<z.output<typeof runSummaryResponse>> {
  const experiment = await experimentOf(ctx, projectId, slug);
  const [head] = await runsOf(ctx, experiment, [runId], 'runId');
  const stats = await runStatistics(ctx, experiment.id, runId, head.targets, true);
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
  };
}

/** Comma-separated ids: trimmed, de-duplicated, none empty. */
export function idList(value: string | undefined, field: string): string[] {
  if (value === undefined) return [];
  const ids = [...new Set(value.split(',').map((s) => s.trim()))];
  if (ids.some((id) => id === '' || id.length > 255)) throw badRequest('validation_error', `${field}: a comma-separated list of ids (1..255 characters each)`, field);
  return ids;
}
