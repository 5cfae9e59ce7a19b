import type { TraceSummary } from '../api/traces.ts';

/** A trace's review scores of one config, summed up by the server (the search's `scores`, a run row's `scores`). */
export type ScoreSummary = NonNullable<TraceSummary['scores']>[number];

const round = (v: number) => String(Math.round(v * 100) / 100);

/** What a cell shows of it: numeric the mean; boolean yes/no (several: the share yes); categorical the latest (+ how many more). */
export function scoreText(s: ScoreSummary): string {
  if (s.kind === 'numeric') return round(s.mean ?? 0);
  if (s.kind === 'boolean') return s.count === 1 ? (s.latest === true ? 'yes' : 'no') : `${Math.round((s.mean ?? 0) * 100)}% yes`;
  return `${String(s.latest)}${s.count > 1 ? ` +${s.count - 1}` : ''}`;
}

/** Its tooltip: how it was summed up, from how many reviews. */
export function scoreTitle(s: ScoreSummary): string {
  const many = s.count > 1 ? ` from ${s.count} reviews` : '';
  if (s.kind === 'numeric') return `${s.name}: mean ${round(s.mean ?? 0)}${many}`;
  if (s.kind === 'boolean') return s.count === 1 ? `${s.name}: ${String(s.latest)}` : `${s.name}: ${Math.round((s.mean ?? 0) * s.count)} of ${s.count} true`;
  const counts = Object.entries(s.counts).map(([k, n]) => `${k} ${n}`).join(', ');
  return `${s.name}: latest ${String(s.latest)}${s.count > 1 ? ` (${counts})` : ''}`;
}
