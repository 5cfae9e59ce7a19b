import { presentScore } from './score-configs.ts';
import type { ScoreSummary } from './scores.schema.ts';

/** One stored score of a trace or a thread (`key`), with its config's name and kind. */
export interface KeyedScore {
  key: string;
  config_id: string;
  name: string;
  kind: 'numeric' | 'boolean' | 'categorical';
  number_value: number | null;
  text_value: string | null;
}

/**
 * Per key (a trace or a thread): its scores summed up per config (numeric: mean; boolean: share
 * true; categorical: counts per category; each with the latest value). `scores` come oldest first.
 */
export function summarizeScores(scores: readonly KeyedScore[]): Map<string, ScoreSummary[]> {
  const byKey = new Map<string, Map<string, ScoreSummary & { sum: number; numbers: number }>>();
  for (const r of scores) {
    const configs = byKey.get(r.key) ?? byKey.set(r.key, new Map()).get(r.key)!;
    const latest = presentScore({ id: r.config_id, name: r.name, kind: r.kind }, r.number_value === null ? null : Number(r.number_value), r.text_value).value;
    let s = configs.get(r.config_id);
    if (!s) configs.set(r.config_id, (s = { configId: r.config_id, name: r.name, kind: r.kind, count: 0, mean: null, latest, counts: {}, sum: 0, numbers: 0 }));
    s.count++;
    s.latest = latest; // oldest first: the last one seen is the latest
    if (r.kind === 'categorical' && r.text_value !== null) s.counts[r.text_value] = (s.counts[r.text_value] ?? 0) + 1;
    if (r.kind !== 'categorical' && r.number_value !== null) {
      s.sum += Number(r.number_value);
      s.numbers++;
      s.mean = s.sum / s.numbers;
    }
  }
  return new Map(
    [...byKey].map(([key, configs]) => [key, [...configs.values()].sort((a, b) => a.name.localeCompare(b.name)).map(({ sum: _s, numbers: _n, ...summary }) => summary)]),
  );
}
