import type { z } from 'zod';
import { badRequest } from '../../platform/errors.ts';
import { bootstrapMean, seedOf, wilson } from '../experiments/index.ts';
import type { JudgeAlignmentContext } from './context.ts';
import { gatherPairs } from './measure-alignment.ts';
import type { selfConsistencyBody, selfConsistencyResponse } from './schemas.ts';
import { pool } from '../../platform/task-pool.ts';
import { PARALLEL_CALLS } from './parallel-calls.ts';
import { pairwiseDisagreement } from './statistics.ts';

type Answer = z.output<typeof selfConsistencyResponse>;
const field = (name: string) => `body.${name}`;
/**
 * POST /api/judge-alignment/self-consistency: the judge run `repeats` times on the same inputs
 * (what each labelled trace gives a judge, as monitors give it) and how often its repeats
 * disagree, per item and overall, with intervals. Nothing is stored: the judge's own results
 * and the alignment are unchanged.
 */
export async function selfConsistency(
  ctx: JudgeAlignmentContext,
  scope: { organizationId: string; projectId: string },
  body: z.output<typeof selfConsistencyBody>,
): Promise<Answer> {
  const { config, pairs } = await gatherPairs(ctx, scope.projectId, body, field);
  if (pairs.length === 0) {
    throw badRequest('nothing_to_repeat', `${field('scoreConfig')}: no trace has both a label of ${config.name} and a result of ${body.evaluator}${body.version === null ? '' : ` version ${body.version}`}`, field('scoreConfig'));
  }
  const items = pairs.slice(0, body.limit);
  const categories = config.kind === 'boolean' ? ['fail', 'pass'] : config.kind === 'categorical' ? config.categories : null;
  const tolerance = ((config.max ?? 1) - (config.min ?? 0)) / 4;
  // a numeric judge's repeats disagree when they are further apart than a quarter of the config's range, as the alignment counts it
  const differ = (a: number, b: number) => (categories ? a !== b : Math.abs(a - b) > tolerance);
  const settings: Record<string, unknown> = body.version === null ? {} : { version: body.version };
  const runs = await pool(
    items.map((item) => async () => {
      const data = await ctx.judges.traceData(scope.projectId, item.traceId);
      if (!data) return { traceId: item.traceId, values: [] as number[], errors: body.repeats, error: 'the trace is gone' };
      const results = await Promise.all(Array.from({ length: body.repeats }, () => ctx.judges.run(scope, body.evaluator, data, settings)));
      const values: number[] = [];
      let error: string | null = null;
      for (const r of results) {
        const v = config.kind === 'boolean' ? (r.passed === null || r.passed === undefined ? null : Number(r.passed)) : config.kind === 'numeric' ? (r.score ?? null) : categories!.indexOf(r.label ?? '');
        if (r.status !== 'processed' || v === null || v < 0) error ??= r.status === 'error' ? (r.details ?? 'error') : `no ${config.kind === 'boolean' ? 'verdict' : config.kind === 'numeric' ? 'score' : 'known label'}`;
        else values.push(v);
      }
      return { traceId: item.traceId, values, errors: body.repeats - values.length, error };
    }),
    Math.max(1, Math.floor(PARALLEL_CALLS / body.repeats)),
  );
  const measured = runs.filter((r) => r.values.length >= 2);
  const rates = measured.map((r) => pairwiseDisagreement(r.values, differ));
  const disagreeing = rates.filter((x) => x > 0).length;
  const seed = seedOf(scope.projectId, body.evaluator, String(body.version), config.id, 'self-consistency');
  const itemsInterval = wilson(disagreeing, measured.length);
  const pairwise = rates.length ? bootstrapMean(Float64Array.from(rates), seed) : null;
  const average = rates.reduce((a, b) => a + b, 0) / Math.max(1, rates.length);
  const value = (c: number) => (categories ? (config.kind === 'boolean' ? c === 1 : categories[c]) : c);
  const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
  const summary = !measured.length
    ? `The judge could not be run twice on any of the ${runs.length} items${runs[0]?.error ? ` (${runs[0].error})` : ''}.`
    : `Run ${body.repeats} times on the same ${measured.length} items, the judge's repeats disagreed on ${disagreeing} of them (${pct(disagreeing / measured.length)}, 95 % interval ${pct(itemsInterval!.low)} to ${pct(itemsInterval!.high)}); two repeats of one item differ ${pct(average)} of the time.`;
  return {
    evaluator: body.evaluator,
    version: body.version,
    scoreConfig: { id: config.id, name: config.name, kind: config.kind },
    repeats: body.repeats,
    items: measured.length,
    unmeasured: runs.length - measured.length,
    disagreeingItems: itemsInterval ? { value: disagreeing / measured.length, low: itemsInterval.low, high: itemsInterval.high, n: measured.length } : null,
    pairwiseDisagreement: pairwise ? { value: average, low: pairwise.low, high: pairwise.high, n: rates.length } : null,
    summary,
    data: runs.map((r) => ({
      traceId: r.traceId,
      values: r.values.map((v) => value(v)),
      errors: r.errors,
      error: r.values.length >= 2 ? null : r.error,
      disagree: r.values.length >= 2 ? pairwiseDisagreement(r.values, differ) > 0 : null,
      pairwiseDisagreement: r.values.length >= 2 ? pairwiseDisagreement(r.values, differ) : null,
    })),
  };
}
