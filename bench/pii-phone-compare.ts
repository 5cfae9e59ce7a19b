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
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as current from '../src/modules/evaluators/pii/index.ts';
import { median } from './lib.ts';
import { privateText2kb } from './privacy.ts';

type Engine = Pick<typeof current, 'detectPii'>;
const here = path.dirname(fileURLToPath(import.meta.url));
const MODULE = 'src/modules/evaluators/pii/index.ts';

async function before(ref: string): Promise<Engine> {
  const dir = path.join(here, '.before', `detect-${ref.slice(0, 12)}`);
  if (!fs.existsSync(path.join(dir, MODULE))) {
    fs.mkdirSync(dir, { recursive: true });
    const archive = execFileSync('git', ['archive', ref, 'src/modules/evaluators/pii'], { cwd: path.resolve(here, '..'), maxBuffer: 64 << 20 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
  }
  return (await import(pathToFileURL(path.join(dir, MODULE)).href)) as Engine;
}

const PARTS: Record<string, readonly current.EntityType[]> = {
  PHONE_NUMBER: ['PHONE_NUMBER'],
  PH_MOBILE_NUMBER: ['PH_MOBILE_NUMBER'],
  'both phone recognizers': ['PHONE_NUMBER', 'PH_MOBILE_NUMBER'],
};

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** Searches by libphonenumber's matchers per text (every entity type): made anew or reused, a search starts at 0. */
function searches(engine: Engine, texts: readonly string[]): number {
  const core = createRequire(import.meta.url)('libphonenumber-js/core') as { PhoneNumberMatcher: { prototype: { find(index: number): unknown } } };
  const proto = core.PhoneNumberMatcher.prototype;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, below
  const find = proto.find;
  let n = 0;
  proto.find = function (this: unknown, index: number) {
    if (index === 0) n++;
    return find.call(this, index);
  };
  try {
    for (const t of texts) engine.detectPii(t, { entities: current.ENTITY_TYPES, minThreshold: 0.5 });
  } finally {
    proto.find = find;
  }
  return n / texts.length;
}

async function main(): Promise<void> {
  const ref = process.argv[2];
  if (!ref) throw new Error('usage: node --import tsx bench/pii-phone-compare.ts <commit> [runs]');
  const runs = Number(process.argv[3] ?? '31');
  const old = await before(ref);
  const texts = Array.from({ length: 200 }, (_, n) => privateText2kb(n + 1_000_000));
  for (const [label, entities] of Object.entries(PARTS)) {
    const options = { entities, minThreshold: 0.5 };
    for (const t of texts) {
      if (JSON.stringify(old.detectPii(t, options)) !== JSON.stringify(current.detectPii(t, options))) throw new Error(`findings differ (${label}): ${t}`);
    }
    for (let k = 0; k < 2; k++) {
      for (const t of texts) {
        old.detectPii(t, options);
        current.detectPii(t, options);
      }
    }
    const times: Record<'before' | 'after', number[]> = { before: [], after: [] };
    for (let r = 0; r < runs; r++) {
      const order = r % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const which of order) {
        const engine = which === 'before' ? old : current;
        const start = cpuMicros();
        for (const t of texts) engine.detectPii(t, options);
        times[which].push((cpuMicros() - start) / texts.length);
      }
    }
    const [b, a] = [median(times.before), median(times.after)];
    console.log(`${label.padEnd(24)} before ${b.toFixed(1)} µs  after ${a.toFixed(1)} µs  after / before ${(a / b).toFixed(2)}`);
  }
  console.log(`libphonenumber searches per text: before ${searches(old, texts).toFixed(2)}, after ${searches(current, texts).toFixed(2)}`);
}

await main();
