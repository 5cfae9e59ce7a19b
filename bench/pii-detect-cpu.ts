/**
 * CPU time of PII detection per 2 KB of the privacy bench's texts (bench/privacy.ts: 200
 * texts, no two alike, so nothing remembered between texts helps), with every entity type
 * as privacy at ingest asks for them, and split by part: names, places and NRP; phone
 * numbers; everything else. CPU time of this process (`process.cpuUsage`), which other
 * processes on a shared machine disturb less than wall time; the median of 5 runs.
 */
import { detectPii, ENTITY_TYPES, type EntityType } from '../src/modules/evaluators/pii/index.ts';
import { median } from './lib.ts';
import { privateText2kb } from './privacy.ts';

const NLP: readonly EntityType[] = ['PERSON', 'LOCATION', 'NRP'];
const PARTS: Record<string, readonly EntityType[]> = {
  'every entity type': ENTITY_TYPES,
  'PERSON, LOCATION, NRP': NLP,
  PHONE_NUMBER: ['PHONE_NUMBER'],
  'all but PERSON, LOCATION, NRP': ENTITY_TYPES.filter((t) => !NLP.includes(t)),
};

export interface DetectCpuResult {
  /** Milliseconds of CPU per 2 KB text, median of the runs, by part. */
  msPer2kb: Record<string, number>;
  runs: Record<string, number[]>;
}

export function benchDetectCpu(opts: { texts?: number; runs?: number } = {}): DetectCpuResult {
  const texts = Array.from({ length: opts.texts ?? 200 }, (_, n) => privateText2kb(n + 1_000_000));
  // Warm up: every list and library loaded, the code optimised.
  for (const entities of Object.values(PARTS)) for (const t of texts.slice(0, 20)) detectPii(t, { entities, minThreshold: 0.5 });
  const runs: Record<string, number[]> = {};
  for (const [label, entities] of Object.entries(PARTS)) {
    runs[label] = [];
    for (let r = 0; r < (opts.runs ?? 5); r++) {
      const before = process.cpuUsage();
      for (const t of texts) detectPii(t, { entities, minThreshold: 0.5 });
      const used = process.cpuUsage(before);
      runs[label].push((used.user + used.system) / 1000 / texts.length);
    }
  }
  return { msPer2kb: Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, median(v)])), runs };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchDetectCpu();
  for (const [label, ms] of Object.entries(r.msPer2kb)) console.log(`${label.padEnd(32)} ${ms.toFixed(2)} ms CPU per 2 KB (runs ${r.runs[label].map((x) => x.toFixed(2)).join(', ')})`);
}
