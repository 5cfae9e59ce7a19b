import type { AlertsContext } from './context.ts';
import { windowMeasurements } from './evaluate-rules.ts';
import { checkRule } from './manage-rules.ts';
import { capSegments, type Measurement } from './measure.ts';
import type { CreateRuleBody, EvaluationView, PreviewView } from './schemas.ts';
import { baselineRange, stepWindow } from './step-window.ts';
import type { SegmentState } from './store.ts';

/** How far back a preview replays a rule. */
export const PREVIEW_DAYS = 30;
const DAY_MS = 86_400_000;

/**
 * Replays a rule, not saved, over the windows of the last 30 days that have ended, with the
 * scheduler's own read (windowMeasurements) and decision (step-window.ts) for each window, so a
 * preview fires exactly where the rule would have. A window read as a baseline is read once.
 * Window by window: at 1M spans 30 days of hourly windows take tens of seconds (docs/performance.md).
 */
export async function previewRule(ctx: AlertsContext, projectId: string, body: CreateRuleBody): Promise<PreviewView> {
  await checkRule(ctx, projectId, body);
  const metric = body.metric;
  const condition = body.condition;
  const windowMs = body.windowMinutes * 60_000;
  const rule = { project_id: projectId, filters: (body.filters ?? null) as Record<string, unknown> | null, split_by: body.splitBy };
  const to = Math.floor(ctx.clock.now().getTime() / windowMs) * windowMs;
  const from = Math.ceil((to - PREVIEW_DAYS * DAY_MS) / windowMs) * windowMs;
  const needValues = condition.kind === 'change';
  const read = new Map<string, Promise<Map<string, Measurement>>>();
  const measured = (start: number, end: number) => {
    const key = `${start}:${end}`;
    let found = read.get(key);
    if (!found) read.set(key, (found = windowMeasurements(ctx, rule, metric, start, end, needValues)));
    return found;
  };

  let states: Record<string, SegmentState> = {};
  const windows: PreviewView['windows'] = [];
  const fires: PreviewView['fires'] = [];
  for (let start = from; start + windowMs <= to; start += windowMs) {
    const end = start + windowMs;
    const { kept: current, leftOut } = capSegments(await measured(start, end));
    const range = baselineRange(condition, start, end, windowMs);
    const baseline = range ? await measured(range[0], range[1]) : null;
    const exposure = range ? (range[1] - range[0]) / windowMs : 1;
    const step = stepWindow({ resolveAfter: body.resolveAfter }, metric, condition, states, current, baseline, exposure, start, end, leftOut);
    for (const e of step.evaluations) if (e.state === 'firing' && states[e.segment]?.state !== 'firing') fires.push({ ...e });
    windows.push({ ...worst(step.evaluations, start, end), segments: step.evaluations.length, breaches: step.evaluations.filter((e) => e.decision === 'breach').length });
    states = step.next;
    // The previous window's read serves as this one's baseline, and is not needed after.
    read.delete(`${start - windowMs}:${start}`);
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
  return sorted[0] ?? { windowStart: start, windowEnd: end, segment: '', value: null, baseline: null, count: 0, baselineCount: null, low: null, high: null, pValue: null, decision: 'too_few', state: 'ok', segmentsLeftOut: 0 };
}

