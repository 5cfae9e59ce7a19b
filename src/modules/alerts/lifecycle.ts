import type { SegmentState } from './store.ts';

/**
 * A segment's next state after one window (docs/alerts.md: "Lifecycle"): it fires after
 * `consecutive` breaching windows in a row and resolves only after `resolveAfter` calm ones
 * (hysteresis: one calm window in a storm does not resolve and re-fire it).
 */
export function nextState(previous: SegmentState | undefined, breach: boolean, windowEnd: number, rule: { consecutive: number; resolveAfter: number }): SegmentState {
  const s: SegmentState = previous ? { ...previous } : { state: 'ok', since: null, breaches: 0, calm: 0, notified: 'ok' };
  if (breach) {
    s.breaches++;
    s.calm = 0;
    if (s.state !== 'firing' && s.breaches >= rule.consecutive) {
      s.state = 'firing';
      s.since = windowEnd;
    }
  } else {
    s.calm++;
    s.breaches = 0;
    if (s.state === 'firing' && s.calm >= rule.resolveAfter) {
      s.state = 'resolved';
      s.since = windowEnd;
    }
  }
  return s;
}

/** Whether the state is news to notify: a change from the last one notified (resolved after ok is not). */
export function isNews(s: SegmentState): boolean {
  if (s.state === s.notified) return false;
  return s.state === 'firing' || s.notified === 'firing';
}
