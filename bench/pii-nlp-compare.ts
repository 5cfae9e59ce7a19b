/**
 * Names, places and NRP alone: extractNlpEntities at an earlier commit against the current one
 * on texts neither has seen, alternated pair by pair in one process (CPU time), findings
 * compared first. `node --import tsx bench/pii-nlp-compare.ts <commit> [pairs]`: pairs of 300
 * texts (40 by default), each pair on new texts, which version runs first alternating.
 */
import * as current from '../src/modules/evaluators/pii/nlp.ts';
import { median } from './lib.ts';
import { comparisonArgs, cpuMicros, importBefore } from './pii-before.ts';
import { privateText2kb } from './privacy.ts';

type Nlp = Pick<typeof current, 'extractNlpEntities'>;
const { ref, runs: pairs, texts: compared } = comparisonArgs('pii-nlp-compare.ts', 40);
const before = await importBefore<Nlp>(ref, 'nlp.ts');
const TEXTS = 300;
let seed = 2_000_000;
const batch = () => Array.from({ length: TEXTS }, () => privateText2kb(seed++));

for (const text of compared) {
  if (JSON.stringify(before.extractNlpEntities(text)) !== JSON.stringify(current.extractNlpEntities(text))) {
    throw new Error(`findings differ on ${JSON.stringify(text.slice(0, 80))}...`);
  }
}
for (let r = 0; r < 3; r++) {
  for (const text of batch()) {
    before.extractNlpEntities(text);
    current.extractNlpEntities(text);
  }
}

/** CPU microseconds per text. */
function time(nlp: Nlp, texts: readonly string[]): number {
  const start = cpuMicros();
  for (const text of texts) nlp.extractNlpEntities(text);
  return (cpuMicros() - start) / texts.length;
}

const olds: number[] = [];
const news: number[] = [];
const ratios: number[] = [];
for (let p = 0; p < pairs; p++) {
  const texts = batch();
  let o: number;
  let n: number;
  if (p % 2 === 0) {
    o = time(before, texts);
    n = time(current, texts);
  } else {
    n = time(current, texts);
    o = time(before, texts);
  }
  olds.push(o);
  news.push(n);
  ratios.push(n / o);
}
console.log(
  `extractNlpEntities: ${ref} ${median(olds).toFixed(1)} us, current ${median(news).toFixed(1)} us per text; ` +
    `current / ${ref} ${median(ratios).toFixed(3)} (median of ${pairs} alternated pairs of ${TEXTS} texts)`,
);
