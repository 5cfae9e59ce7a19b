import type { AlertsContext } from './context.ts';
import { heldBecause } from './judge-trust-gate.ts';
import { checkRule } from './manage-rules.ts';
import { capSegments } from './measure.ts';
import { readWindows, windowMeasurements } from './read-windows.ts';
import type { CreateRuleBody, EvaluationView, PreviewView } from './schemas.ts';
import { baselineRange, stepWindow } from './step-window.ts';
import type { SegmentState } from './store.ts';

/** How far back a preview replays a rule. */
export const PREVIEW_DAYS = 30;
const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

/**
 * Replays a rule, not saved, over the windows of the last 30 days that have ended, with the
 * scheduler's own decision (step-window.ts) for each window, so a preview fires exactly where the
 * rule would have. The windows are read in bulk (read-windows.ts: one statement per source for
 * the 30 days, grouped by window and segment, the same measurements the scheduler's one-window
 * read gives): the windows themselves, the week before them for a week baseline, or the reference
 * period once. A rule that requires a trusted judge, whose judge is not trusted now, is replayed
 * held back as the scheduler would hold it (judge-trust-gate.ts): its breaches are `held`
 * windows with the reason, not fires.
 */
export async function previewRule(ctx: AlertsContext, projectId: string, body: CreateRuleBody): Promise<PreviewView> {
  await checkRule(ctx, projectId, body);
  const metric = body.metric;
  const condition = body.condition;
  const windowMs = body.windowMinutes * 60_000;
  const rule = { project_id: projectId, filters: (body.filters ?? null) as Record<string, unknown> | null, split_by: body.splitBy };
  const to = Math.floor(ctx.clock.now().getTime() / windowMs) * windowMs;
  const from = Math.ceil((to - PREVIEW_DAYS * DAY_MS) / windowMs) * windowMs;
  const count = Math.max(0, Math.floor((to - from) / windowMs));
  const change = condition.kind === 'change';
  const baselineKind = change ? condition.baseline.kind : null;
  // The windows a baseline reads, when they lie on the rule's grid: the window before (one more
  // window), or the same window a week earlier (a week more; the week's windows and the replayed
  // ones overlap but for a week, so one read of 37 days serves both, not two of 30).
  const before = baselineKind === 'previous' ? windowMs : baselineKind === 'week' && WEEK_MS % windowMs === 0 ? WEEK_MS : 0;
  const first = from - before;
  const [held, measured, weekBefore, reference] = await Promise.all([
    // The judge's trust now, as the scheduler reads it once per round: a rule that requires a
    // trusted judge is replayed held back while it is not (its breaches held, never fired).
    heldBecause(ctx, projectId, metric),
    readWindows(ctx, rule, metric, first, windowMs, count + before / windowMs, change),
    // A window length that does not divide a week: the week before is a grid of its own.
    baselineKind === 'week' && before === 0 ? readWindows(ctx, rule, metric, from - WEEK_MS, windowMs, count, true) : null,
    change && condition.baseline.kind === 'reference' ? windowMeasurements(ctx, rule, metric, condition.baseline.start, condition.baseline.end, true) : null,
  ]);
  const baselineOf = (range: [number, number]) => (baselineKind === 'reference' ? reference! : (weekBefore ?? measured).get(range[0])!);

  let states: Record<string, SegmentState> = {};
  const windows: PreviewView['windows'] = [];
  const fires: PreviewView['fires'] = [];
  let heldWindows = 0;
  for (let start = from; start + windowMs <= to; start += windowMs) {
    const end = start + windowMs;
    const { kept: current, leftOut } = capSegments(measured.get(start)!);
    const range = baselineRange(condition, start, end, windowMs);
    const baseline = range ? baselineOf(range) : null;
    const exposure = range ? (range[1] - range[0]) / windowMs : 1;
    const step = stepWindow({ resolveAfter: body.resolveAfter }, metric, condition, states, current, baseline, exposure, start, end, leftOut, held);
    for (const e of step.evaluations) if (e.state === 'firing' && states[e.segment]?.state !== 'firing') fires.push({ ...e });
    const holds = step.evaluations.filter((e) => e.decision === 'held').length;
    if (holds > 0) heldWindows++;
    windows.push({ ...worst(step.evaluations, start, end), segments: step.evaluations.length, breaches: step.evaluations.filter((e) => e.decision === 'breach').length, holds });
    states = step.next;
  }
  return { from, to, windowMinutes: body.windowMinutes, fired: fires.length, fires, held, heldWindows, windows };
}

const DECISION_RANK: Record<EvaluationView['decision'], number> = { breach: 0, held: 1, calm: 2, too_few: 3 };

/** A window's row in the chart: the segment nearest to firing (a breach or one held back, then the smallest p-value, then the most events, then by name: one answer whatever order the segments were read in). */
function worst(evaluations: EvaluationView[], start: number, end: number): EvaluationView {
  const rank = (e: EvaluationView) => [DECISION_RANK[e.decision], e.pValue ?? 1, -e.count];
  const sorted = [...evaluations].sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || a.segment.localeCompare(b.segment);
  });
  return sorted[0] ?? { windowStart: start, windowEnd: end, segment: '', value: null, baseline: null, count: 0, baselineCount: null, low: null, high: null, pValue: null, decision: 'too_few', state: 'ok', segmentsLeftOut: 0, held: null };
}

