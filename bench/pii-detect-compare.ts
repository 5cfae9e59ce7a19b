/**
 * Detection CPU per 2 KB of the privacy bench's texts, an earlier commit against this
 * version, loaded side by side in one process and alternated run by run, so that a loaded
 * machine disturbs both alike (bench/pii-detect-cpu.ts measures one version). The earlier
 * commit's PII engine is taken out of git into bench/.before/<commit>. Findings are compared
 * first (every part, threshold 0.5, as privacy at ingest asks). Also counted, which the load
 * does not move: libphonenumber searches (a matcher's search of the text it is given, a
 * window of a text) and whole-text regular expression scans per text.
 *
 *   node --import tsx bench/pii-detect-compare.ts <commit> [runs, default 7]
 *
 * Check a ratio against the same code first: two copies of one commit read 0.69 on every entity
 * type, not 1, and 1.01-1.14 part by part (docs/performance.md, 2026-12-02, the last section),
 * so the two engines side by side do not run alike and a ratio near that says nothing about
 * the change. The findings comparison and the counts hold.
 */
import * as current from '../src/modules/evaluators/pii/index.ts';
import { median } from './lib.ts';
import { alternatedCpu, comparisonArgs, importBefore, phoneSearches, type Engine } from './pii-before.ts';

const before = (ref: string) => importBefore<Engine>(ref, 'index.ts');

const NLP: readonly current.EntityType[] = ['PERSON', 'LOCATION', 'NRP'];
const PARTS: Record<string, readonly current.EntityType[]> = {
  'every entity type': current.ENTITY_TYPES,
  'PERSON, LOCATION, NRP': NLP,
  PHONE_NUMBER: ['PHONE_NUMBER'],
  'all but PERSON, LOCATION, NRP': current.ENTITY_TYPES.filter((t) => !NLP.includes(t)),
};

/** Global regular expressions run over a whole text (from its start), per text, every entity type. */
function wholeTextScans(engine: Engine, texts: readonly string[]): number {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, below
  const exec = RegExp.prototype.exec;
  let scans = 0;
  RegExp.prototype.exec = function (this: RegExp, s: string) {
    if (this.global && this.lastIndex === 0 && s.length >= 1000) scans++;
    return exec.call(this, s);
  };
  try {
    for (const t of texts) engine.detectPii(t, { entities: current.ENTITY_TYPES, minThreshold: 0.5 });
  } finally {
    RegExp.prototype.exec = exec;
  }
  return scans / texts.length;
}

async function main(): Promise<void> {
  const { ref, runs, texts } = comparisonArgs('pii-detect-compare.ts', 7);
  const old = await before(ref);
  for (const [label, us] of Object.entries(alternatedCpu(old, current, PARTS, texts, runs))) {
    const times = { before: us.before.map((x) => x / 1000), after: us.after.map((x) => x / 1000) };
    const [b, a] = [median(times.before), median(times.after)];
    const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ');
    console.log(`${label.padEnd(30)} before ${b.toFixed(2)} ms (${list(times.before)})  after ${a.toFixed(2)} ms (${list(times.after)})  after / before ${(a / b).toFixed(2)}`);
  }
  // Last: replacing RegExp.prototype.exec, even for a moment, turns off V8's fast paths for
  // regular expressions in this process for good.
  for (const [label, engine] of [['before', old], ['after', current]] as const) {
    const searches = phoneSearches(engine, texts, current.ENTITY_TYPES);
    console.log(`${label}: per text, ${searches.toFixed(2)} libphonenumber searches, ${wholeTextScans(engine, texts).toFixed(1)} whole-text regular expression scans`);
  }
}

await main();
