import { nextState } from './lifecycle.ts';
import { decide, ZERO_WHEN_EMPTY, type Condition, type Measurement, type Metric, type SegmentDecision } from './measure.ts';
import type { EvaluationView } from './schemas.ts';
import type { SegmentState } from './store.ts';

const WEEK_MS = 7 * 86_400_000;

/**
 * One window of a rule, decided: the one code the scheduler (evaluate-rules.ts) and the
 * preview (preview-rule.ts) both run, so a preview fires exactly where the rule would have.
 */
export interface WindowStep {
  decisions: SegmentDecision[];
  /** Every segment's state after the window. */
  next: Record<string, SegmentState>;
  /** What the window saw and decided, per segment (the history's rows). */
  evaluations: EvaluationView[];
}

/** The baseline period of a change condition for the window [start, end); null for a threshold. */
export function baselineRange(condition: Condition, start: number, end: number, windowMs: number): [number, number] | null {
  if (condition.kind !== 'change') return null;
  const b = condition.baseline;
  return b.kind === 'reference' ? [b.start, b.end] : b.kind === 'week' ? [start - WEEK_MS, end - WEEK_MS] : [start - windowMs, start];
}

/** A rule without a split has one segment, '' , in every window: a window without traces counts zero (or no value). */
export function withEmptySegment(metric: Metric, found: Map<string, Measurement>, split: boolean): Map<string, Measurement> {
  if (!split && !found.has('')) found.set('', { value: ZERO_WHEN_EMPTY.has(metric.kind) ? 0 : null, count: 0, successes: 0 });
  return found;
}

export function stepWindow(
  rule: { resolveAfter: number },
  metric: Metric,
  condition: Condition,
  states: Record<string, SegmentState>,
  current: Map<string, Measurement>,
  baseline: Map<string, Measurement> | null,
  /** Baseline length over window length. */
  exposure: number,
  start: number,
  end: number,
  /** Segments past the cap, not evaluated in this window (counted in its history). */
  segmentsLeftOut = 0,
  /** Why the window may not fire (its judge is not trusted): breaches count as calm windows. */
  held: string | null = null,
): WindowStep {
  const decided = decide(metric, condition, current, baseline, exposure);
  const decisions = held === null ? decided : decided.map((d) => ({ ...d, breach: false }));
  const next: Record<string, SegmentState> = { ...states };
  const lifecycle = { consecutive: condition.consecutive, resolveAfter: rule.resolveAfter };
  // A segment seen before but absent now had no events: a calm window for it.
  const seen = new Set(decisions.map((d) => d.segment));
  for (const segment of Object.keys(states)) if (!seen.has(segment)) next[segment] = nextState(states[segment], false, end, lifecycle);
  for (const d of decisions) next[d.segment] = nextState(states[d.segment], d.breach, end, lifecycle);
  const evaluations: EvaluationView[] = decisions.map((d, i) => ({
    windowStart: start,
    windowEnd: end,
    segment: d.segment,
    value: d.current.value,
    baseline: d.baseline?.value ?? null,
    count: d.current.count,
    baselineCount: d.baseline?.count ?? (baseline ? 0 : null),
    low: d.low,
    high: d.high,
    pValue: d.pValue,
    decision: d.tooFew ? 'too_few' : d.breach ? 'breach' : held !== null && decided[i].breach ? 'held' : 'calm',
    state: next[d.segment].state,
    segmentsLeftOut,
    held,
  }));
  return { decisions, next, evaluations };
}
