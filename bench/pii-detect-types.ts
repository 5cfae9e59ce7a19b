/**
 * Detection CPU per 2 KB of the privacy bench's texts by entity type, an earlier commit
 * against this version, loaded side by side in one process and alternated run by run as in
 * bench/pii-detect-compare.ts (whose copy of the earlier engine, bench/.before/<commit>, it
 * shares): every type but names, places, NRP and phone numbers together (the pattern
 * recognizers and the engine around them), the street-address recognizer alone, then each
 * of those types alone. Findings are compared first (threshold 0.5, as privacy at ingest asks).
 *
 *   node --import tsx bench/pii-detect-types.ts <commit> [runs, default 9]
 */
import * as current from '../src/modules/evaluators/pii/index.ts';
import { ALL_RECOGNIZERS } from '../src/modules/evaluators/pii/engine.ts';
import type { AnalyzeOptions } from '../src/modules/evaluators/pii/recognizer.ts';
import { median } from './lib.ts';
import { comparisonArgs, cpuMicros, importBefore } from './pii-before.ts';

async function before(ref: string): Promise<{ detect: typeof current; recognizers: typeof ALL_RECOGNIZERS }> {
  const detect = await importBefore<typeof current>(ref, 'index.ts');
  const engine = await importBefore<{ ALL_RECOGNIZERS: typeof ALL_RECOGNIZERS }>(ref, 'engine.ts');
  return { detect, recognizers: engine.ALL_RECOGNIZERS };
}

async function main(): Promise<void> {
  const { ref, runs, texts } = comparisonArgs('pii-detect-types.ts', 9);
  const old = await before(ref);
  const others: readonly current.EntityType[] = ['PERSON', 'LOCATION', 'NRP', 'PHONE_NUMBER', 'PH_MOBILE_NUMBER'];
  const types = current.ENTITY_TYPES.filter((t) => !others.includes(t));
  // The street-address recognizer asks nothing of its options but whether it may prune.
  const options = { pruning: true } as AnalyzeOptions;
  const address = (list: typeof ALL_RECOGNIZERS) => list.find((r) => r.name === 'StreetAddressRecognizer')!;
  const parts: Array<[string, (t: string) => unknown, (t: string) => unknown]> = [
    ['patterns and engine (all but 5 types)', (t) => old.detect.detectPii(t, { entities: types, minThreshold: 0.5 }), (t) => current.detectPii(t, { entities: types, minThreshold: 0.5 })],
    ['street addresses (recognizer)', (t) => address(old.recognizers).analyze(t, options), (t) => address(ALL_RECOGNIZERS).analyze(t, options)],
    ...types.map((e): [string, (t: string) => unknown, (t: string) => unknown] => [
      e,
      (t) => old.detect.detectPii(t, { entities: [e], minThreshold: 0.5 }),
      (t) => current.detectPii(t, { entities: [e], minThreshold: 0.5 }),
    ]),
  ];
  for (const [label, b, a] of parts) {
    for (const t of texts) if (JSON.stringify(b(t)) !== JSON.stringify(a(t))) throw new Error(`findings differ (${label}): ${t}`);
    for (const t of texts) {
      b(t);
      a(t);
    }
    const times = { before: [] as number[], after: [] as number[] };
    for (let r = 0; r < runs; r++) {
      for (const which of r % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)) {
        const f = which === 'before' ? b : a;
        const start = cpuMicros();
        for (const t of texts) f(t);
        times[which].push((cpuMicros() - start) / texts.length);
      }
    }
    const [mb, ma] = [median(times.before), median(times.after)];
    console.log(`${label.padEnd(40)} before ${mb.toFixed(1).padStart(6)} us  after ${ma.toFixed(1).padStart(6)} us  after / before ${(ma / mb).toFixed(2)}`);
  }
}

await main();
