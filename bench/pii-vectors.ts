/**
 * Presidio's recognizer test vectors (test/fixtures/presidio/recognizer_vectors.json): one
 * check per case, shared by the test (which reports each case) and `npm run bench` (which
 * counts them, for this version and an older one).
 */
import { readFileSync } from 'node:fs';

export interface Vector {
  text: string;
  entity: string;
  should_detect: boolean;
  expected_count: number;
  spans: Array<[number, number]> | null;
  extra: {
    expected_score_ranges?: Array<[number | 'max', number | 'max']>;
    expected_score?: number | null | unknown[];
    score?: number;
    leniency?: number;
  };
  recognizer: string | null;
  test: string;
}

export function loadVectors(): Vector[] {
  const url = new URL('../test/fixtures/presidio/recognizer_vectors.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { rows: Vector[] }).rows;
}

interface Span {
  start: number;
  end: number;
  score: number;
}

/** How a version of the evaluator is asked: its detectPii with these options. */
export type Detect = (
  text: string,
  options: { entities: string[]; minThreshold: number; context?: boolean; phoneLeniency?: 'POSSIBLE' | 'VALID' },
) => Span[];

const LENIENCY = { 0: 'POSSIBLE', 1: 'VALID' } as const;

/**
 * Null when the case passes, else what differs. Counts and spans with every enhancement on
 * and threshold 0 (as the evaluator answers); scores as Presidio's recognizer tests check
 * them, without context words.
 */
export function checkVector(v: Vector, detect: Detect): string | null {
  const leniency = v.extra.leniency;
  const phoneLeniency = leniency === undefined ? undefined : (LENIENCY[leniency as 0 | 1] ?? 'VALID');
  const found = detect(v.text, { entities: [v.entity], minThreshold: 0, phoneLeniency });
  if (found.length !== v.expected_count) return `expected ${v.expected_count} findings, got ${found.length}`;
  if (v.spans) {
    const got = found.map((f) => `${f.start}-${f.end}`).sort().join(',');
    const want = v.spans.map(([s, e]) => `${s}-${e}`).sort().join(',');
    if (got !== want) return `expected spans ${want}, got ${got}`;
  }
  const raw = detect(v.text, { entities: [v.entity], minThreshold: 0, context: false, phoneLeniency }).sort((a, b) => a.start - b.start);
  const ranges = v.extra.expected_score_ranges;
  if (ranges && ranges.length === raw.length) {
    for (const [i, [lo, hi]] of ranges.entries()) {
      const low = lo === 'max' ? 1 : lo;
      const high = hi === 'max' ? 1 : hi;
      if (raw[i].score < low - 1e-9 || raw[i].score > high + 1e-9) return `score ${raw[i].score} outside [${low}, ${high}]`;
    }
  }
  const expected = typeof v.extra.expected_score === 'number' && v.extra.expected_score > 0 ? v.extra.expected_score : v.extra.score;
  if (expected !== undefined) {
    for (const r of raw) if (Math.abs(r.score - expected) > 5e-7) return `score ${r.score}, expected ${expected}`;
  }
  return null;
}
