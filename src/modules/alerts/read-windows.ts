import type { GroupSums, PeriodQuery } from '../analytics/index.ts';
import type { AlertsContext } from './context.ts';
import { measure, type Measurement, type Metric, type WindowData } from './measure.ts';
import { METRICS, type Segment } from './schemas.ts';
import { withEmptySegment } from './step-window.ts';
import type * as store from './store.ts';

/** What a rule reads: its project, trace filter and split. */
export type RuleSource = Pick<store.RuleRow, 'project_id' | 'filters' | 'split_by'>;

/**
 * What `count` windows of `windowMs` from `origin` measured, per window start and segment: one
 * statement per source the metric needs (sums, per-trace values, evaluation results or review
 * scores), each grouped by window and segment. The scheduler reads one window this way, the
 * preview 30 days; every window of the range is in the answer (without traces: no segment, or
 * the unsplit rule's empty one).
 */
export async function readWindows(
  ctx: AlertsContext,
  rule: RuleSource,
  metric: Metric,
  origin: number,
  windowMs: number,
  count: number,
  needValues: boolean,
): Promise<Map<number, Map<string, Measurement>>> {
  const split = rule.split_by !== null;
  const data = await windowsData(ctx, rule.project_id, { metric, filters: rule.filters, splitBy: rule.split_by as Segment | null, needValues }, origin, windowMs, count);
  const out = new Map<number, Map<string, Measurement>>();
  for (let i = 0; i < count; i++) {
    const start = origin + i * windowMs;
    out.set(start, withEmptySegment(metric, measure(metric, data.get(start) ?? {}, split), split));
  }
  return out;
}

/** What one window [start, end) of a rule measured, per segment. */
export async function windowMeasurements(ctx: AlertsContext, rule: RuleSource, metric: Metric, start: number, end: number, needValues: boolean): Promise<Map<string, Measurement>> {
  return (await readWindows(ctx, rule, metric, start, end - start, 1, needValues)).get(start)!;
}

/** Reads the windows of a project for a metric from the analytics module: only the source the metric needs, one statement each. */
async function windowsData(
  ctx: AlertsContext,
  projectId: string,
  q: { metric: Metric; filters: Record<string, unknown> | null; splitBy: Segment | null; needValues: boolean },
  origin: number,
  windowMs: number,
  count: number,
): Promise<Map<number, WindowData>> {
  // The analytics range includes its end: a trace started exactly at the last window's end is the next window's.
  const range = { startDate: origin, endDate: origin + count * windowMs - 1, windowMs, filters: (q.filters ?? undefined) as PeriodQuery['filters'] };
  const groupBy = q.splitBy === 'evaluator' ? null : q.splitBy;
  const source = METRICS[q.metric.kind].source;
  const byWindow = new Map<number, WindowData>();
  const at = (window: number) => byWindow.get(window) ?? byWindow.set(window, {}).get(window)!;
  if (source === 'scores') {
    for (const { window, ...s } of await ctx.windowScores(projectId, { ...range, configId: q.metric.configId ?? '', category: q.metric.category ?? null })) at(window).scores = s;
    return byWindow;
  }
  if (source === 'thread_evaluations') {
    // Thread results count in the window they were stored in (a thread is judged once idle).
    const q2 = { origin, windowMs, end: origin + count * windowMs, name: q.metric.evaluator ?? null, byName: q.splitBy === 'evaluator' };
    for (const { window, ...e } of await ctx.windowThreadEvaluations(projectId, q2)) (at(window).evaluations ??= []).push(e);
    return byWindow;
  }
  if (source === 'evaluations') {
    for (const { window, ...e } of await ctx.windowEvaluations(projectId, { ...range, groupBy: q.splitBy, evaluator: q.metric.evaluator ?? null })) (at(window).evaluations ??= []).push(e);
    return byWindow;
  }
  const column = source === 'sums' ? null : source;
  const [sums, values] = await Promise.all([
    source === 'latency' || source === 'first_token' ? Promise.resolve([] as (GroupSums & { window: number })[]) : ctx.windowSums(projectId, { ...range, groupBy }),
    column && (q.needValues || source === 'latency' || source === 'first_token') ? ctx.windowValues(projectId, { ...range, groupBy, column }) : Promise.resolve([]),
  ]);
  for (const { window, ...s } of sums) (at(window).sums ??= []).push(s);
  for (const { window, ...v } of values) (at(window).values ??= []).push(v);
  return byWindow;
}
