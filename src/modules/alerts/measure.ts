import type { GroupSums } from '../analytics/index.ts';
import { normalMean, quantile } from '../experiments/index.ts';
import { benjaminiHochberg, countInterval, poissonTest, rankTest, rateInterval, twoProportionTest, type Direction } from './statistics.ts';
import { METRICS, type MetricKind } from './schemas.ts';

export interface Metric {
  kind: MetricKind;
  evaluator?: string;
  configId?: string;
  category?: string;
}

/** A metric in one window of one segment: the value, and the counts a test needs. */
export interface Measurement {
  value: number | null;
  /** Events in the window: traces, verdicts, thumbs, evaluations or scores. */
  count: number;
  /** Rates: the events that count (errors, passes, thumbs down, the category). */
  successes: number;
  /** Values: one per trace (or evaluation), what the rank test compares. */
  values?: Float64Array;
}

/**
 * What one window of a project holds for a metric (read by read-windows.ts from the analytics
 * module, many windows at once): per-group sums, per-trace values, evaluation results (of traces,
 * or of whole threads) counted per group, or one review score config's scores.
 */
export interface WindowData {
  sums?: GroupSums[];
  values?: { g: string | null; values: number[] }[];
  evaluations?: { g: string | null; ran: number; errors: number; verdicts: number; passed: number; scores: number[] }[];
  scores?: { kind: string; count: number; total: number; inCategory: number; traceMeans: number[] };
}

/** Values kept per window and segment: past it the percentiles and rank tests use the first ones read. */
export const MAX_WINDOW_VALUES = 200_000;

/** The percentile each percentile metric reads. */
const PERCENTILE: Partial<Record<MetricKind, number>> = { latency_p50: 0.5, latency_p95: 0.95, latency_p99: 0.99, first_token_p50: 0.5, first_token_p95: 0.95 };
/** Metrics that are sums: a window without events measured 0, not "no value". */
export const ZERO_WHEN_EMPTY: ReadonlySet<MetricKind> = new Set(['trace_count', 'cost_total', 'tokens_total']);

/** A segment's key: '' without a split, '(none)' for traces without one (no customer, no prompt). */
const keyOf = (split: boolean, g: string | null) => (split ? (g ?? '(none)') : '');

/** Values sorted ascending (percentiles, and sums in one order whichever way they were read), at most MAX_WINDOW_VALUES. */
const sortedValues = (list: number[]) => Float64Array.from(list.length > MAX_WINDOW_VALUES ? list.slice(0, MAX_WINDOW_VALUES) : list).sort();

/**
 * The metric per segment in one window. Rates and counts from the sums; percentiles and
 * means from the per-trace (or per-evaluation) values, which also go to the rank test.
 */
export function measure(metric: Metric, data: WindowData, split: boolean): Map<string, Measurement> {
  const out = new Map<string, Measurement>();
  const source = METRICS[metric.kind].source;
  if (source === 'scores') {
    const s = data.scores ?? { kind: '', count: 0, total: 0, inCategory: 0, traceMeans: [] };
    // The mean of every score (as the charts show it). A numeric score's values are one mean per
    // scored trace (what its rank test compares); a boolean score's mean is a share and has none.
    const values = s.kind === 'numeric' ? sortedValues(s.traceMeans) : undefined;
    out.set('', metric.kind === 'score_mean' ? { value: s.count ? s.total / s.count : null, count: s.count, successes: s.total, values } : rate(s.inCategory, s.count));
    return out;
  }
  if (source === 'evaluations' || source === 'thread_evaluations') {
    const groups = new Map<string, { ran: number; errors: number; verdicts: number; passed: number; scores: number[] }>();
    for (const e of data.evaluations ?? []) {
      const k = keyOf(split, e.g);
      const s = groups.get(k) ?? groups.set(k, { ran: 0, errors: 0, verdicts: 0, passed: 0, scores: [] }).get(k)!;
      s.ran += e.ran;
      s.errors += e.errors;
      s.verdicts += e.verdicts;
      s.passed += e.passed;
      for (const v of e.scores) s.scores.push(v);
    }
    for (const [k, s] of groups) {
      out.set(
        k,
        metric.kind === 'evaluator_pass_rate' || metric.kind === 'thread_pass_rate'
          ? rate(s.passed, s.verdicts)
          : metric.kind === 'evaluator_error_rate'
            ? rate(s.errors, s.ran)
            : meanOf(sortedValues(s.scores)),
      );
    }
    return out;
  }
  const values = new Map<string, number[]>();
  for (const r of data.values ?? []) {
    const k = keyOf(split, r.g);
    const list = values.get(k) ?? values.set(k, []).get(k)!;
    for (const v of r.values) list.push(v);
  }
  const q = PERCENTILE[metric.kind];
  if (q !== undefined) {
    for (const [k, list] of values) {
      const sorted = sortedValues(list);
      out.set(k, { value: quantile(sorted, q)?.value ?? null, count: sorted.length, successes: 0, values: sorted });
    }
    return out;
  }
  for (const s of data.sums ?? []) {
    const k = keyOf(split, s.group);
    const v = values.get(k) ? sortedValues(values.get(k)!) : undefined;
    const m: Measurement =
      metric.kind === 'trace_count'
        ? { value: s.traces, count: s.traces, successes: 0 }
        : metric.kind === 'error_rate'
          ? rate(s.errors, s.traces)
          : metric.kind === 'thumbs_down_rate'
            ? rate(s.thumbs_down, s.thumbs_up + s.thumbs_down)
            : metric.kind === 'cost_total'
              ? { value: s.cost, count: s.traces, successes: 0, values: v }
              : metric.kind === 'cost_per_trace'
                ? { value: s.traces ? s.cost / s.traces : null, count: s.traces, successes: 0, values: v }
                : { value: s.tokens, count: s.traces, successes: 0, values: v };
    out.set(k, m);
  }
  return out;
}

const rate = (successes: number, n: number): Measurement => ({ value: n ? successes / n : null, count: n, successes });
const meanOf = (values: Float64Array): Measurement => {
  let sum = 0;
  for (const v of values) sum += v;
  return { value: values.length ? sum / values.length : null, count: values.length, successes: sum, values };
};

export interface SegmentDecision {
  segment: string;
  current: Measurement;
  baseline: Measurement | null;
  low: number | null;
  high: number | null;
  pValue: number | null;
  breach: boolean;
  tooFew: boolean;
}

export type Condition =
  | { kind: 'threshold'; operator: 'above' | 'below'; value: number; consecutive: number; minCount: number }
  | { kind: 'change'; direction?: Direction; alpha: number; consecutive: number; minCount: number; baseline: { kind: 'previous' | 'week' } | { kind: 'reference'; start: number; end: number } };

/** The 95 % interval of a measurement: Wilson for rates, Poisson for counts, order statistics for percentiles, the normal interval of a mean. */
function intervalOf(metric: Metric, m: Measurement): { low: number; high: number } | null {
  const family = METRICS[metric.kind].family;
  if (family === 'rate') return rateInterval(m.successes, m.count);
  if (family === 'count') return countInterval(m.count, 1);
  const q = PERCENTILE[metric.kind];
  if (q !== undefined && m.values) return quantile(m.values, q);
  if ((metric.kind === 'evaluator_score_mean' || metric.kind === 'thread_score_mean' || metric.kind === 'cost_per_trace') && m.values) return normalMean(m.values);
  return null;
}

/**
 * Decides every segment of one window. Change: each segment's p-value against its baseline
 * (the test of the metric's family: two proportions, Poisson, or Mann-Whitney on the values),
 * corrected together with Benjamini-Hochberg at the rule's alpha; a segment with fewer events
 * than `minCount` neither fires nor counts in the correction.
 */
export function decide(
  metric: Metric,
  condition: Condition,
  current: Map<string, Measurement>,
  baseline: Map<string, Measurement> | null,
  /** Baseline length over window length (a reference period of a day against 5 minutes: 288). */
  exposure: number,
): SegmentDecision[] {
  const family = METRICS[metric.kind].family;
  const decisions: SegmentDecision[] = [...current.entries()].map(([segment, m]) => {
    const tooFew = m.count < condition.minCount || m.value === null;
    const interval = intervalOf(metric, m);
    return { segment, current: m, baseline: baseline?.get(segment) ?? null, low: interval?.low ?? null, high: interval?.high ?? null, pValue: null, breach: false, tooFew };
  });
  if (condition.kind === 'threshold') {
    for (const d of decisions) {
      if (d.tooFew) continue;
      d.breach = condition.operator === 'above' ? d.current.value! > condition.value : d.current.value! < condition.value;
    }
    return decisions;
  }
  const direction = condition.direction ?? METRICS[metric.kind].direction;
  const pValues = decisions.map((d) => {
    if (d.tooFew) return null;
    const b = d.baseline ?? { value: null, count: 0, successes: 0 };
    if (family === 'count') return poissonTest(d.current.count, 1, b.count, exposure, direction).pValue;
    // A boolean score's mean is a share (measured without values): its change is the two-proportion test's;
    // a numeric score's, the rank test's on one mean per scored trace.
    if (family === 'value' && (metric.kind !== 'score_mean' || d.current.values)) return rankTest(d.current.values ?? [], b.values ?? [], direction)?.pValue ?? null;
    return twoProportionTest({ successes: d.current.successes, n: d.current.count }, { successes: b.successes, n: b.count }, direction)?.pValue ?? null;
  });
  const { rejected, adjusted } = benjaminiHochberg(pValues, condition.alpha);
  decisions.forEach((d, i) => {
    d.pValue = adjusted[i];
    d.breach = rejected[i];
  });
  return decisions;
}

/** Past this many segments in a window, the ones with fewest events are left out (and counted in the history). */
export const MAX_SEGMENTS = 1_000;

/** The `MAX_SEGMENTS` segments with most events, and how many were left out. */
export function capSegments(found: Map<string, Measurement>, max = MAX_SEGMENTS): { kept: Map<string, Measurement>; leftOut: number } {
  if (found.size <= max) return { kept: found, leftOut: 0 };
  const kept = new Map([...found.entries()].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0])).slice(0, max));
  return { kept, leftOut: found.size - max };
}
