import type { z } from 'zod';
import type { metricSchema, RuleView } from './schemas.ts';
import type { RuleRow } from './store.ts';

export function presentRule(r: RuleRow): RuleView {
  const segments = Object.entries(r.segment_states)
    .map(([segment, s]) => ({ segment, state: s.state, since: s.since }))
    .sort((a, b) => a.segment.localeCompare(b.segment));
  return {
    id: r.id,
    name: r.name,
    metric: r.metric as z.output<typeof metricSchema>,
    filters: r.filters,
    splitBy: r.split_by as RuleView['splitBy'],
    windowMinutes: r.window_ms / 60_000,
    condition: r.condition,
    resolveAfter: r.resolve_after,
    enabled: r.enabled,
    channels: r.channel_ids,
    muted: r.muted,
    snoozedUntil: r.snoozed_until,
    acknowledgedAt: r.acknowledged_at,
    state: segments.some((s) => s.state === 'firing') ? 'firing' : segments.some((s) => s.state === 'resolved') ? 'resolved' : 'ok',
    segments,
    // filled in by withJudgeTrust (judge-trust-gate.ts)
    judge: null,
    evaluatedThrough: r.evaluated_through,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
