/**
 * CPU of the phone recognizers per 2 KB of the privacy bench's texts, an earlier commit
 * against this version, loaded side by side in one process and alternated run by run (as
 * bench/pii-detect-compare.ts does for the parts of detection): PHONE_NUMBER alone,
 * PH_MOBILE_NUMBER alone, and both. Findings are compared first. Also counted: the searches
 * libphonenumber's matchers make per text (a matcher's search from the start of a text),
 * which the load does not move.
 *
 *   node --import tsx bench/pii-phone-compare.ts <commit> [runs, default 31]
 */
import * as current from '../src/modules/evaluators/pii/index.ts';
import { median } from './lib.ts';
import { alternatedCpu, comparisonArgs, importBefore, phoneSearches, type Engine } from './pii-before.ts';

const before = (ref: string) => importBefore<Engine>(ref, 'index.ts');

const PARTS: Record<string, readonly current.EntityType[]> = {
  PHONE_NUMBER: ['PHONE_NUMBER'],
  PH_MOBILE_NUMBER: ['PH_MOBILE_NUMBER'],
  'both phone recognizers': ['PHONE_NUMBER', 'PH_MOBILE_NUMBER'],
};

async function main(): Promise<void> {
  const { ref, runs, texts } = comparisonArgs('pii-phone-compare.ts', 31);
  const old = await before(ref);
  for (const [label, times] of Object.entries(alternatedCpu(old, current, PARTS, texts, runs))) {
    const [b, a] = [median(times.before), median(times.after)];
    console.log(`${label.padEnd(24)} before ${b.toFixed(1)} µs  after ${a.toFixed(1)} µs  after / before ${(a / b).toFixed(2)}`);
  }
  const searches = (engine: Engine) => phoneSearches(engine, texts, current.ENTITY_TYPES).toFixed(2);
  console.log(`libphonenumber searches per text: before ${searches(old)}, after ${searches(current)}`);
}

await main();
