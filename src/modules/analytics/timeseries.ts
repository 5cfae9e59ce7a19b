import { badRequest } from '../../platform/errors.ts';
import { bucketing, toMillis } from '../../platform/time-buckets.ts';
import type { MetricsRow, ScoreBucketRow, ThumbsRow, Totals } from '../traces/index.ts';
import { foreignGroups, roundUsd, type AnalyticsContext, type AnalyticsScope, type ThreadSeriesQuery } from './context.ts';
import type { TimeseriesBucket, TimeseriesRequest, TimeseriesResponse } from './schemas.ts';

type ScoreKind = TimeseriesResponse['scores'][number]['kind'];

export const MAX_RANGE_DAYS = 400;
export const MAX_GROUPS = 10;

/** Charts of a project over a range: per bucket (and group) counts, sums, latency percentiles, verdicts and thumbs. */
export async function timeseries(ctx: AnalyticsContext, { projectId }: AnalyticsScope, req: TimeseriesRequest): Promise<TimeseriesResponse> {
  const startDate = toMillis(req.startDate, 'startDate');
  const endDate = toMillis(req.endDate, 'endDate');
  if (endDate < startDate) throw badRequest('invalid_range', 'endDate: before startDate', 'endDate');
  if (endDate - startDate > MAX_RANGE_DAYS * 86_400_000) throw badRequest('invalid_range', `endDate: at most ${MAX_RANGE_DAYS} days after startDate`, 'endDate');
  const buckets = bucketing(startDate, endDate, req.interval ?? 'auto', 'interval', req.utcOffsetMinutes ?? 0);
  const groupBy = req.groupBy ?? null;
  const reads = await ctx.db.reads.executor();
  // Thread results are dated by when they ran, not by their traces: a search keeps the threads with a trace it picks, at any time.
  const picked = req.query || (req.filters && Object.keys(req.filters).length) ? ctx.ports.traces.pickedThreads(projectId, { query: req.query, filters: req.filters }) : null;
  const threadQuery: ThreadSeriesQuery = { start: startDate, end: endDate, buckets: buckets.spec, threads: picked };
  const [result, threadResults, threadScores] = await Promise.all([
    ctx.ports.traces.aggregateTraces(reads, {
      projectId,
      search: { query: req.query, filters: req.filters, startDate, endDate },
      bucket: buckets.spec,
      groupBy,
      foreignGroups: foreignGroups(ctx, projectId),
      maxGroups: MAX_GROUPS,
      thumbs: ctx.ports.thumbs(projectId),
      verdicts: ctx.ports.verdicts(projectId),
      scores: ctx.ports.scores(projectId),
    }),
    ctx.ports.threadResults(reads, projectId, threadQuery),
    ctx.ports.threadScores(reads, projectId, threadQuery),
  ]);

  // One series per group: the kept groups by traces (most first), then "other".
  const key = (kept: boolean, g: string | null) => (kept ? `g:${g ?? ''}:${g === null ? 'null' : ''}` : 'other');
  const series = new Map<string, { group: string | null; other: boolean; traces: number; byStart: Map<number, TimeseriesBucket> }>();
  const seriesOf = (kept: boolean, g: string | null) => {
    const k = key(kept, g);
    let s = series.get(k);
    if (!s) series.set(k, (s = { group: kept ? g : 'other', other: !kept, traces: 0, byStart: new Map() }));
    return s;
  };
  for (const m of result.metrics) {
    const s = seriesOf(m.kept, m.g);
    s.traces += Number(m.traces);
    const [p50, p95, p99] = m.latency ?? [null, null, null];
    s.byStart.set(Number(m.b), {
      start: Number(m.b),
      traces: Number(m.traces),
      spans: Number(m.spans),
      errors: Number(m.errors),
      error_rate: m.traces > 0 ? Number(m.errors) / Number(m.traces) : null,
      cost: roundUsd(Number(m.cost)),
      tokens: { prompt: Number(m.prompt), completion: Number(m.completion), cached: Number(m.cached), reasoning: Number(m.reasoning) },
      latency_ms: { p50: p50 ?? null, p95: p95 ?? null, p99: p99 ?? null },
      thumbs_up: 0,
      thumbs_down: 0,
    });
  }
  for (const t of result.thumbs) {
    const bucket = series.get(key(t.kept, t.g))?.byStart.get(Number(t.b));
    if (bucket) {
      bucket.thumbs_up = Number(t.up);
      bucket.thumbs_down = Number(t.down);
    }
  }
  // Without any trace there is still one (empty) series, so a chart has its axis.
  if (series.size === 0 && groupBy === null) seriesOf(true, null);
  const ordered = [...series.values()].sort((a, b) => Number(a.other) - Number(b.other) || b.traces - a.traces || String(a.group).localeCompare(String(b.group)));

  const verdicts = new Map<string, { evaluator: string; type: string; byStart: Map<number, { passed: number; failed: number }> }>();
  for (const v of result.verdicts) {
    const k = `${v.name}\u0000${v.evaluator}`;
    const e = verdicts.get(k) ?? verdicts.set(k, { evaluator: v.name, type: v.evaluator, byStart: new Map() }).get(k)!;
    e.byStart.set(Number(v.b), { passed: Number(v.passed), failed: Number(v.failed) });
  }

  const threadEvaluations = new Map<string, Map<number, (typeof threadResults)[number]>>();
  for (const r of threadResults) (threadEvaluations.get(r.name) ?? threadEvaluations.set(r.name, new Map()).get(r.name)!).set(Number(r.b), r);

  // Each trace is in one series unless grouped by model or label: then the store counted the totals.
  const t = result.totals ?? sumOf(result.metrics, result.thumbs);
  return {
    interval: buckets.interval,
    intervalMs: buckets.intervalMs,
    startDate,
    endDate,
    series: ordered.map((s) => ({ group: s.group, other: s.other, buckets: buckets.starts.map((start) => s.byStart.get(start) ?? emptyBucket(start)) })),
    evaluations: [...verdicts.values()]
      .sort((a, b) => a.evaluator.localeCompare(b.evaluator) || a.type.localeCompare(b.type))
      .map((e) => ({
        evaluator: e.evaluator,
        type: e.type,
        buckets: buckets.starts.map((start) => {
          const { passed, failed } = e.byStart.get(start) ?? { passed: 0, failed: 0 };
          return { start, passed, failed, pass_rate: passed + failed > 0 ? passed / (passed + failed) : null };
        }),
      })),
    scores: scoreSeries(result.scores, buckets.starts),
    threadEvaluations: [...threadEvaluations]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, byStart]) => ({
        name,
        buckets: buckets.starts.map((start) => {
          const r = byStart.get(start);
          const [passed, failed] = r ? [r.passed, r.failed] : [0, 0];
          return {
            start,
            evaluated: r?.evaluated ?? 0,
            passed,
            failed,
            errors: r?.errors ?? 0,
            pass_rate: passed + failed > 0 ? passed / (passed + failed) : null,
            scored: r?.scored ?? 0,
            mean_score: r?.mean ?? null,
          };
        }),
      })),
    threadScores: scoreSeries(threadScores, buckets.starts),
    totals: {
      traces: Number(t.traces),
      spans: Number(t.spans),
      errors: Number(t.errors),
      cost: roundUsd(Number(t.cost)),
      tokens: { prompt: Number(t.prompt), completion: Number(t.completion), cached: Number(t.cached), reasoning: Number(t.reasoning) },
      thumbs_up: Number(t.up),
      thumbs_down: Number(t.down),
    },
  };
}

/** Scores (of traces or of threads) per config, counted per bucket: numeric and boolean as a mean, categories counted. */
function scoreSeries(rows: ScoreBucketRow[], starts: number[]): TimeseriesResponse['scores'] {
  const scores = new Map<string, { configId: string; name: string; kind: ScoreKind; byStart: Map<number, { count: number; total: number; counts: Record<string, number> }> }>();
  for (const r of rows) {
    const c = scores.get(r.config_id) ?? scores.set(r.config_id, { configId: r.config_id, name: r.name, kind: r.kind as ScoreKind, byStart: new Map() }).get(r.config_id)!;
    const b = c.byStart.get(Number(r.b)) ?? c.byStart.set(Number(r.b), { count: 0, total: 0, counts: {} }).get(Number(r.b))!;
    b.count += Number(r.n);
    b.total += Number(r.total ?? 0);
    if (r.category !== null) b.counts[r.category] = Number(r.n);
  }
  return [...scores.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((c) => ({
      configId: c.configId,
      name: c.name,
      kind: c.kind,
      buckets: starts.map((start) => {
        const b = c.byStart.get(start);
        if (!b) return { start, count: 0, mean: null, counts: {} };
        return { start, count: b.count, mean: c.kind === 'categorical' ? null : b.total / b.count, counts: c.kind === 'categorical' ? b.counts : {} };
      }),
    }));
}

function sumOf(metrics: MetricsRow[], thumbs: ThumbsRow[]): Totals {
  const t: Totals = { traces: 0, spans: 0, errors: 0, cost: 0, prompt: 0, completion: 0, cached: 0, reasoning: 0, up: 0, down: 0 };
  for (const m of metrics) {
    for (const k of ['traces', 'spans', 'errors', 'cost', 'prompt', 'completion', 'cached', 'reasoning'] as const) t[k] += Number(m[k]);
  }
  for (const x of thumbs) {
    t.up += Number(x.up);
    t.down += Number(x.down);
  }
  return t;
}

function emptyBucket(start: number): TimeseriesBucket {
  return {
    start,
    traces: 0,
    spans: 0,
    errors: 0,
    error_rate: null,
    cost: 0,
    tokens: { prompt: 0, completion: 0, cached: 0, reasoning: 0 },
    latency_ms: { p50: null, p95: null, p99: null },
    thumbs_up: 0,
    thumbs_down: 0,
  };
}
