import type { TimeseriesResponse } from '../analytics/schemas.ts';
import type { AlertsContext } from './context.ts';
import { windowMeasurements } from './evaluate-rules.ts';
import { checkRule } from './manage-rules.ts';
import { measure, type Measurement } from './measure.ts';
import type { CreateRuleBody, EvaluationView, PreviewView } from './schemas.ts';
import { baselineRange, stepWindow, withEmptySegment } from './step-window.ts';
import type { SegmentState } from './store.ts';

/** How far back a preview replays a rule. */
export const PREVIEW_DAYS = 30;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Buckets per analytics query (its limit for an explicit interval). */
const BUCKETS_PER_QUERY = 2_000;

/**
 * Replays a rule, not saved, over the windows of the last 30 days that have ended, with the
 * scheduler's own decision (step-window.ts): each window's numbers and the times it would have
 * fired. The traces are read in a few queries (buckets that divide the window, up to 2,000 a
 * query) rather than two per window; a split rule's segments are the 10 with most traces in
 * each query's span (about 33 hours for 5-minute windows) where the scheduler takes them per window.
 */
export async function previewRule(ctx: AlertsContext, projectId: string, body: CreateRuleBody): Promise<PreviewView> {
  await checkRule(ctx, projectId, body);
  const metric = body.metric;
  const condition = body.condition;
  const windowMs = body.windowMinutes * 60_000;
  const split = body.splitBy !== null;
  const rule = { project_id: projectId, filters: (body.filters ?? null) as Record<string, unknown> | null, split_by: body.splitBy };
  const to = Math.floor(ctx.clock.now().getTime() / windowMs) * windowMs;
  const from = Math.ceil((to - PREVIEW_DAYS * DAY_MS) / windowMs) * windowMs;

  // The rolling baselines come from the same reads; a reference period is read once.
  const lookBack = condition.kind === 'change' ? (condition.baseline.kind === 'previous' ? windowMs : condition.baseline.kind === 'week' ? 7 * DAY_MS : 0) : 0;
  const readFrom = Math.floor((from - lookBack) / windowMs) * windowMs;
  const byWindow = await readWindows(ctx, rule, windowMs, readFrom, to);
  const measured = (start: number) => withEmptySegment(metric, measure(metric, byWindow.get(start) ?? EMPTY, split), split);
  const reference = condition.kind === 'change' && condition.baseline.kind === 'reference' ? await windowMeasurements(ctx, rule, metric, condition.baseline.start, condition.baseline.end) : null;

  let states: Record<string, SegmentState> = {};
  const windows: PreviewView['windows'] = [];
  const fires: PreviewView['fires'] = [];
  for (let start = from; start + windowMs <= to; start += windowMs) {
    const end = start + windowMs;
    const range = baselineRange(condition, start, end, windowMs);
    let baseline: Map<string, Measurement> | null = null;
    if (range) baseline = reference ?? measured(range[0]);
    const exposure = range ? (range[1] - range[0]) / windowMs : 1;
    const step = stepWindow({ resolveAfter: body.resolveAfter }, metric, condition, states, measured(start), baseline, exposure, start, end);
    for (const e of step.evaluations) if (e.state === 'firing' && states[e.segment]?.state !== 'firing') fires.push({ ...e });
    windows.push({ ...worst(step.evaluations, start, end), segments: step.evaluations.length, breaches: step.evaluations.filter((e) => e.decision === 'breach').length });
    states = step.next;
  }
  return { from, to, windowMinutes: body.windowMinutes, fired: fires.length, fires, windows };
}

/** A window's row in the chart: the segment nearest to firing (a breach, then the smallest p-value, then the most events). */
function worst(evaluations: EvaluationView[], start: number, end: number): EvaluationView {
  const rank = (e: EvaluationView) => [e.decision === 'breach' ? 0 : e.decision === 'calm' ? 1 : 2, e.pValue ?? 1, -e.count];
  const sorted = [...evaluations].sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
  return sorted[0] ?? { windowStart: start, windowEnd: end, segment: '', value: null, baseline: null, count: 0, baselineCount: null, low: null, high: null, pValue: null, decision: 'too_few', state: 'ok' };
}

const EMPTY: TimeseriesResponse = {
  interval: 'minute',
  intervalMs: 60_000,
  startDate: 0,
  endDate: 0,
  series: [],
  evaluations: [],
  scores: [],
  totals: { traces: 0, spans: 0, errors: 0, cost: 0, tokens: { prompt: 0, completion: 0, cached: 0, reasoning: 0 }, thumbs_up: 0, thumbs_down: 0 },
};

/**
 * The analytics series over [from, to), read in spans of whole windows with buckets that divide
 * the window (windows align to the epoch in UTC, so do the buckets), and cut per window: window
 * start -> that window's buckets, as measure() reads one window.
 */
async function readWindows(ctx: AlertsContext, rule: { project_id: string; filters: Record<string, unknown> | null; split_by: string | null }, windowMs: number, from: number, to: number): Promise<Map<number, TimeseriesResponse>> {
  const [interval, bucketMs] = windowMs % DAY_MS === 0 ? (['day', DAY_MS] as const) : windowMs % HOUR_MS === 0 ? (['hour', HOUR_MS] as const) : (['minute', 60_000] as const);
  const span = Math.max(1, Math.floor((BUCKETS_PER_QUERY * bucketMs) / windowMs)) * windowMs;
  const out = new Map<number, TimeseriesResponse>();
  const windowOf = (start: number) => {
    const w = Math.floor(start / windowMs) * windowMs;
    let r = out.get(w);
    if (!r) out.set(w, (r = { ...EMPTY, series: [], evaluations: [], scores: [] }));
    return r;
  };
  for (let start = from; start < to; start += span) {
    const end = Math.min(to, start + span);
    const read = await ctx.series(rule.project_id, {
      startDate: start,
      endDate: end - 1,
      interval,
      filters: rule.filters ?? undefined,
      groupBy: (rule.split_by as 'model' | 'label' | 'user' | null) ?? null,
    });
    // Each series, evaluation and score config, cut into its windows (one pass over the buckets).
    for (const s of read.series) for (const b of s.buckets) entry(windowOf(b.start).series, (x) => x.group === s.group && x.other === s.other, () => ({ ...s, buckets: [] })).buckets.push(b);
    for (const e of read.evaluations) for (const b of e.buckets) entry(windowOf(b.start).evaluations, (x) => x.evaluator === e.evaluator && x.type === e.type, () => ({ ...e, buckets: [] })).buckets.push(b);
    for (const c of read.scores) for (const b of c.buckets) entry(windowOf(b.start).scores, (x) => x.configId === c.configId, () => ({ ...c, buckets: [] })).buckets.push(b);
  }
  return out;
}

function entry<T>(list: T[], is: (x: T) => boolean, make: () => T): T {
  let found = list.find(is);
  if (!found) list.push((found = make()));
  return found;
}
