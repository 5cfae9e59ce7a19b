/**
 * GET /api/simulations/sets/{scenarioSetId}/compare: two batches of one set (two versions of an
 * agent) side by side. Each scenario's pass rate in each batch (a scenario run several times gives
 * a rate, with its Wilson interval), and the overall difference as experiments measure one: the
 * paired bootstrap over the scenarios both batches ran, its p-value, the minimum detectable
 * effect, and the verdict in the same words (better, worse, no detectable difference, not enough
 * data under 20 paired scenarios).
 */
import type { z } from 'zod';
import { badRequest } from '../../platform/errors.ts';
import { MIN_PAIRED_ROWS, pairedDifference, seedOf, verdictOf, wilson } from '../experiments/index.ts';
import type { SimulationsContext } from './context.ts';
import type { compareResponse } from './schemas.ts';
import * as store from './store.ts';

type Rate = { runs: number; passed: number; passRate: number | null; interval: { low: number; high: number } | null };

const rateOf = (passed: number, finished: number): Rate => ({ runs: finished, passed, passRate: finished ? passed / finished : null, interval: wilson(passed, finished) });
const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
const points = (x: number) => `${x >= 0 ? '+' : '−'}${Math.round(Math.abs(x) * 1000) / 10} points`;

export async function compareBatches(ctx: SimulationsContext, projectId: string, scenarioSetId: string, baseline: string, candidate: string): Promise<z.output<typeof compareResponse>> {
  if (baseline === candidate) throw badRequest('validation_error', 'querystring.candidate: compare two different batches', 'querystring.candidate');
  const load = async (batchRunId: string, field: string) => {
    const found = await store.batchScenarioCounts(ctx.db.orm, projectId, batchRunId);
    if (!found.length || found[0].scenario_set_id !== scenarioSetId) {
      throw badRequest('validation_error', `querystring.${field}: no batch ${batchRunId} of the set ${scenarioSetId} in this project`, `querystring.${field}`);
    }
    return found;
  };
  const base = await load(baseline, 'baseline');
  const cand = await load(candidate, 'candidate');
  const byId = (list: typeof base) => new Map(list.map((s) => [s.scenario_id, s]));
  const b = byId(base);
  const c = byId(cand);
  const ids = [...new Set([...b.keys(), ...c.keys()])].sort();
  const finished = (s: { passed: number; failed: number }) => s.passed + s.failed;
  const diffs: number[] = [];
  const scenarios = ids.map((id) => {
    const x = b.get(id);
    const y = c.get(id);
    const br = x && finished(x) ? rateOf(x.passed, finished(x)) : null;
    const cr = y && finished(y) ? rateOf(y.passed, finished(y)) : null;
    const difference = br && cr ? cr.passRate! - br.passRate! : null;
    if (difference !== null) diffs.push(difference);
    return { scenarioId: id, name: y?.name ?? x?.name ?? null, baseline: br, candidate: cr, difference };
  });
  const total = (list: typeof base) => rateOf(list.reduce((n, s) => n + s.passed, 0), list.reduce((n, s) => n + finished(s), 0));
  const overallBase = total(base);
  const overallCand = total(cand);
  const d = pairedDifference(Float64Array.from(diffs), seedOf('simulations', projectId, scenarioSetId, baseline, candidate));
  const verdict = !d || d.thin ? ('not enough data' as const) : verdictOf(d.difference, d.pValue, true);
  const rates = `The candidate passes ${overallCand.passRate === null ? 'no finished run' : `${pct(overallCand.passRate)} (${overallCand.passed} of ${overallCand.runs} runs)`}, the baseline ${overallBase.passRate === null ? 'no finished run' : `${pct(overallBase.passRate)} (${overallBase.passed} of ${overallBase.runs})`}.`;
  let why: string;
  if (!d) why = 'No scenario finished in both batches: nothing to compare.';
  else if (d.thin === 'too few rows') why = `Not enough data: ${diffs.length} scenario${diffs.length === 1 ? '' : 's'} ran in both batches; a verdict needs at least ${MIN_PAIRED_ROWS}.`;
  else if (d.thin === 'no spread') why = `Not enough data: every paired scenario changed by the same ${points(d.difference)}, so there is no spread to measure.`;
  else {
    const interval = `${points(d.difference)} (95% interval ${points(d.interval.low)} to ${points(d.interval.high)}) over ${diffs.length} paired scenarios`;
    why =
      verdict === 'better'
        ? `Better: ${interval}.`
        : verdict === 'worse'
          ? `Worse: ${interval}.`
          : `No detectable difference: ${interval}; this many scenarios detect a change of ${points(d.minimumDetectableEffect)} or more.`;
  }
  return {
    scenarioSetId,
    baseline: { batchRunId: baseline, label: base[0].label },
    candidate: { batchRunId: candidate, label: cand[0].label },
    overall: {
      baseline: overallBase,
      candidate: overallCand,
      pairedScenarios: diffs.length,
      difference: d?.difference ?? null,
      interval: d ? d.interval : null,
      pValue: d?.pValue ?? null,
      verdict,
      minimumDetectableEffect: d && !d.thin ? d.minimumDetectableEffect : null,
      summary: `${rates} ${why}`,
    },
    scenarios,
  };
}
