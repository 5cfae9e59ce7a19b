import type { TimeseriesBucket, TimeseriesResponse } from '../analytics/schemas.ts';
import type { Chart, MetricName } from './schemas.ts';

type Totals = TimeseriesResponse['totals'];

/**
 * How a metric is read from one analytics answer: per bucket of each trace series, or per
 * evaluation or score config. `sum` metrics add up over a range; `ratio` metrics are a sum over
 * a sum (so a range's rate is the rate of its sums, never a mean of rates); `percentile` ones
 * neither.
 */
type MetricCase =
  | { source: 'series'; kind: 'sum'; point: (b: TimeseriesBucket) => number; whole: (t: Totals) => number }
  | { source: 'series'; kind: 'ratio'; part: (b: TimeseriesBucket) => [number, number]; whole: (t: Totals) => [number, number] }
  | { source: 'series'; kind: 'percentile'; point: (b: TimeseriesBucket) => number | null }
  | { source: 'evaluations'; kind: 'ratio' }
  | { source: 'scores'; kind: 'ratio' }
  | { source: 'scores'; kind: 'sum' }
  | { source: 'threadEvaluations'; kind: 'ratio'; part: (b: ThreadBucket) => [number, number] }
  | { source: 'threadScores'; kind: 'ratio' };

type ThreadBucket = TimeseriesResponse['threadEvaluations'][number]['buckets'][number];

const sum = (point: (b: TimeseriesBucket) => number, whole: (t: Totals) => number): MetricCase => ({ source: 'series', kind: 'sum', point, whole });
const percentile = (point: (b: TimeseriesBucket) => number | null): MetricCase => ({ source: 'series', kind: 'percentile', point });

/** One case per metric (the compiler checks none is missing). */
export const METRIC_CASES: Record<MetricName, MetricCase> = {
  traces: sum((b) => b.traces, (t) => t.traces),
  spans: sum((b) => b.spans, (t) => t.spans),
  errors: sum((b) => b.errors, (t) => t.errors),
  error_rate: { source: 'series', kind: 'ratio', part: (b) => [b.errors, b.traces], whole: (t) => [t.errors, t.traces] },
  cost: sum((b) => b.cost, (t) => t.cost),
  tokens: sum((b) => b.tokens.prompt + b.tokens.completion, (t) => t.tokens.prompt + t.tokens.completion),
  prompt_tokens: sum((b) => b.tokens.prompt, (t) => t.tokens.prompt),
  completion_tokens: sum((b) => b.tokens.completion, (t) => t.tokens.completion),
  latency_p50: percentile((b) => b.latency_ms.p50),
  latency_p95: percentile((b) => b.latency_ms.p95),
  latency_p99: percentile((b) => b.latency_ms.p99),
  thumbs_up: sum((b) => b.thumbs_up, (t) => t.thumbs_up),
  thumbs_down: sum((b) => b.thumbs_down, (t) => t.thumbs_down),
  evaluation_pass_rate: { source: 'evaluations', kind: 'ratio' },
  score_mean: { source: 'scores', kind: 'ratio' },
  score_count: { source: 'scores', kind: 'sum' },
  thread_pass_rate: { source: 'threadEvaluations', kind: 'ratio', part: (b) => [b.passed, b.passed + b.failed] },
  // The mean of a bucket times its scored results gives back its sum: a range's mean is its sums' ratio.
  thread_score_mean: { source: 'threadEvaluations', kind: 'ratio', part: (b) => [b.mean_score === null ? 0 : b.mean_score * b.scored, b.mean_score === null ? 0 : b.scored] },
  thread_review_score_mean: { source: 'threadScores', kind: 'ratio' },
};

export interface ReadSeries {
  name: string;
  group: string | null;
  other: boolean;
  total: number | null;
  points: { start: number; value: number | null }[];
}

const rate = ([n, d]: [number, number]) => (d > 0 ? n / d : null);
/** Float sums drift in the last digits; the analytics answer keeps 10 decimals, so do the charts. */
const round = (v: number | null) => (v === null ? null : Math.round(v * 1e10) / 1e10);

/** A chart's series and its whole-range figure, read from the analytics answer of its query. */
export function readChart(chart: Pick<Chart, 'metric' | 'evaluator' | 'scoreConfigId' | 'groupBy'>, answer: TimeseriesResponse): { series: ReadSeries[]; value: number | null } {
  const c = METRIC_CASES[chart.metric];
  if (c.source === 'evaluations') {
    const parts = answer.evaluations
      .filter((e) => !chart.evaluator || e.evaluator === chart.evaluator || e.type === chart.evaluator)
      .map((e) => ({ name: e.evaluator, group: null, parts: e.buckets.map((b) => ({ start: b.start, part: [b.passed, b.passed + b.failed] as [number, number] })) }));
    return fromParts(parts);
  }
  if (c.source === 'scores') {
    const configs = answer.scores.filter((s) => !chart.scoreConfigId || s.configId === chart.scoreConfigId);
    if (c.kind === 'sum') {
      // One categorical config: a series per category; otherwise a series per config.
      const one = configs.length === 1 && chart.scoreConfigId && configs[0].kind === 'categorical' ? configs[0] : null;
      const series = one
        ? [...new Set(one.buckets.flatMap((b) => Object.keys(b.counts)))].sort().map((category) => counted(category, category, one.buckets.map((b) => ({ start: b.start, value: b.counts[category] ?? 0 }))))
        : configs.map((s) => counted(s.name, s.configId, s.buckets.map((b) => ({ start: b.start, value: b.count }))));
      return { series, value: series.reduce((n, s) => n + (s.total ?? 0), 0) };
    }
    // numeric: the mean; boolean: the share true; a categorical config has no mean.
    const parts = configs
      .filter((s) => s.kind !== 'categorical')
      .map((s) => ({ name: s.name, group: s.configId, parts: s.buckets.map((b) => ({ start: b.start, part: [b.mean === null ? 0 : b.mean * b.count, b.mean === null ? 0 : b.count] as [number, number] })) }));
    const read = fromParts(parts);
    // Means of different configs (1..5, yes/no) make no one figure: only one config's has a value.
    return chart.scoreConfigId ? read : { ...read, value: null };
  }
  if (c.source === 'threadEvaluations') {
    const parts = answer.threadEvaluations
      .filter((e) => !chart.evaluator || e.name === chart.evaluator)
      .map((e) => ({ name: e.name, group: null, parts: e.buckets.map((b) => ({ start: b.start, part: c.part(b) })) }));
    return fromParts(parts);
  }
  if (c.source === 'threadScores') {
    // People's scores of whole threads, as score_mean reads trace scores: one series per config unless one is picked.
    const parts = answer.threadScores
      .filter((s) => (!chart.scoreConfigId || s.configId === chart.scoreConfigId) && s.kind !== 'categorical')
      .map((s) => ({ name: s.name, group: s.configId, parts: s.buckets.map((b) => ({ start: b.start, part: [b.mean === null ? 0 : b.mean * b.count, b.mean === null ? 0 : b.count] as [number, number] })) }));
    const read = fromParts(parts);
    return chart.scoreConfigId ? read : { ...read, value: null };
  }
  const named = (s: TimeseriesResponse['series'][number]) => (chart.groupBy ? (s.other ? 'other' : (s.group ?? '(none)')) : chart.metric);
  if (c.kind === 'sum') {
    const series = answer.series.map((s) => {
      const points = s.buckets.map((b) => ({ start: b.start, value: c.point(b) }));
      return { name: named(s), group: s.other ? null : s.group, other: s.other, total: round(points.reduce((n, p) => n + (p.value ?? 0), 0)), points };
    });
    // Traces with several labels (or models) are in several series: the whole is the answer's totals.
    return { series, value: round(c.whole(answer.totals)) };
  }
  if (c.kind === 'ratio') {
    const { part, whole: wholeOf } = c;
    const series = answer.series.map((s) => {
      const parts = s.buckets.map((b) => part(b));
      const whole = parts.reduce<[number, number]>((acc, p) => [acc[0] + p[0], acc[1] + p[1]], [0, 0]);
      return { name: named(s), group: s.other ? null : s.group, other: s.other, total: rate(whole), points: s.buckets.map((b, i) => ({ start: b.start, value: rate(parts[i]) })) };
    });
    return { series, value: rate(wholeOf(answer.totals)) };
  }
  const series = answer.series.map((s) => ({ name: named(s), group: s.other ? null : s.group, other: s.other, total: null, points: s.buckets.map((b) => ({ start: b.start, value: c.point(b) })) }));
  return { series, value: null };
}

const counted = (name: string, group: string, points: { start: number; value: number }[]): ReadSeries => ({ name, group, other: false, total: points.reduce((n, p) => n + p.value, 0), points });

function fromParts(list: { name: string; group: string | null; parts: { start: number; part: [number, number] }[] }[]): { series: ReadSeries[]; value: number | null } {
  const all: [number, number] = [0, 0];
  const series = list.map((s) => {
    const whole = s.parts.reduce<[number, number]>((acc, p) => [acc[0] + p.part[0], acc[1] + p.part[1]], [0, 0]);
    all[0] += whole[0];
    all[1] += whole[1];
    return { name: s.name, group: s.group, other: false, total: rate(whole), points: s.parts.map((p) => ({ start: p.start, value: rate(p.part) })) };
  });
  return { series, value: rate(all) };
}
