import type { TimeseriesResponse } from '../analytics/schemas.ts';
import { benjaminiHochberg, countInterval, poissonTest, rateInterval, twoProportionTest, type Direction } from './statistics.ts';
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
  /** Events in the window: traces, verdicts, thumbs or scores. */
  count: number;
  /** Rates: the events that count (errors, passes, thumbs down, the category). */
  successes: number;
}

/**
 * The metric per segment, from the analytics series of one window (summed over its
 * buckets). The "other" series (the segments past the 10 with most traces) is left out:
 * it has no identity to alert on.
 */
export function measure(metric: Metric, series: TimeseriesResponse, split: boolean): Map<string, Measurement> {
  const out = new Map<string, Measurement>();
  if (metric.kind === 'evaluator_pass_rate') {
    let passed = 0;
    let failed = 0;
    for (const e of series.evaluations) {
      if (e.evaluator !== metric.evaluator && e.type !== metric.evaluator) continue;
      for (const b of e.buckets) {
        passed += b.passed;
        failed += b.failed;
      }
    }
    out.set('', rate(passed, passed + failed));
    return out;
  }
  if (metric.kind === 'score_mean' || metric.kind === 'category_share') {
    let count = 0;
    let total = 0;
    let inCategory = 0;
    for (const c of series.scores) {
      if (c.configId !== metric.configId) continue;
      for (const b of c.buckets) {
        count += b.count;
        if (b.mean !== null) total += b.mean * b.count;
        inCategory += b.counts[metric.category ?? ''] ?? 0;
      }
    }
    out.set('', metric.kind === 'score_mean' ? { value: count ? total / count : null, count, successes: total } : rate(inCategory, count));
    return out;
  }
  for (const s of series.series) {
    if (s.other) continue;
    let traces = 0;
    let errors = 0;
    let cost = 0;
    let tokens = 0;
    let up = 0;
    let down = 0;
    for (const b of s.buckets) {
      traces += b.traces;
      errors += b.errors;
      cost += b.cost;
      tokens += b.tokens.prompt + b.tokens.completion;
      up += b.thumbs_up;
      down += b.thumbs_down;
    }
    const segment = split ? (s.group ?? '(none)') : '';
    const m: Measurement =
      metric.kind === 'trace_count'
        ? { value: traces, count: traces, successes: 0 }
        : metric.kind === 'error_rate'
          ? rate(errors, traces)
          : metric.kind === 'thumbs_down_rate'
            ? rate(down, up + down)
            : metric.kind === 'cost_total'
              ? { value: cost, count: traces, successes: 0 }
              : metric.kind === 'cost_per_trace'
                ? { value: traces ? cost / traces : null, count: traces, successes: 0 }
                : { value: tokens, count: traces, successes: 0 };
    out.set(segment, m);
  }
  return out;
}

const rate = (successes: number, n: number): Measurement => ({ value: n ? successes / n : null, count: n, successes });

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

/**
 * Decides every segment of one window. Change: each segment's p-value against its baseline
 * (the test of the metric's family), corrected together with Benjamini-Hochberg at the rule's
 * alpha; a segment with fewer events than `minCount` neither fires nor counts in the correction.
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
    const interval = family === 'rate' ? rateInterval(m.successes, m.count) : family === 'count' ? countInterval(m.count, 1) : null;
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
    return twoProportionTest({ successes: d.current.successes, n: d.current.count }, { successes: b.successes, n: b.count }, direction)?.pValue ?? null;
  });
  const { rejected, adjusted } = benjaminiHochberg(pValues, condition.alpha);
  decisions.forEach((d, i) => {
    d.pValue = adjusted[i];
    d.breach = rejected[i];
  });
  return decisions;
}
