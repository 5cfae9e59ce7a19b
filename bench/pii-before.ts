/**
 * What the PII comparison benches share (pii-detect-compare, pii-phone-compare,
 * pii-detect-types): an earlier commit's engine taken out of git into
 * bench/.before/detect-<commit>, and detection of the privacy bench's texts by the earlier and
 * the current engine, alternated run by run in one process so that a loaded machine disturbs
 * both alike, findings compared first.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Pii from '../src/modules/evaluators/pii/index.ts';
import { median } from './lib.ts';
import { privateText2kb } from './privacy.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const PII = 'src/modules/evaluators/pii';

export type Engine = Pick<typeof Pii, 'detectPii'>;

/** A module of the engine as it was at `ref` (a file under src/modules/evaluators/pii). */
export async function importBefore<T>(ref: string, file: string): Promise<T> {
  // By the commit the ref names now: a copy kept under a moving name ("HEAD") would be an older commit's.
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: path.resolve(here, '..'), encoding: 'utf8' }).trim();
  const dir = path.join(here, '.before', `detect-${commit.slice(0, 12)}`);
  if (!fs.existsSync(path.join(dir, PII, 'index.ts'))) {
    fs.mkdirSync(dir, { recursive: true });
    const archive = execFileSync('git', ['archive', commit, PII], { cwd: path.resolve(here, '..'), maxBuffer: 64 << 20 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
  }
  return (await import(pathToFileURL(path.join(dir, PII, file)).href)) as T;
}

/**
 * A comparison bench's command line (`<commit> [runs]`, usage in the error naming `script`) and
 * the texts it times: 200 of the privacy bench's, no two alike.
 */
export function comparisonArgs(script: string, defaultRuns: number): { ref: string; runs: number; texts: string[] } {
  const ref = process.argv[2];
  if (!ref) throw new Error(`usage: node --import tsx bench/${script} <commit> [runs]`);
  const runs = Number(process.argv[3] ?? String(defaultRuns));
  return { ref, runs, texts: Array.from({ length: 200 }, (_, n) => privateText2kb(n + 1_000_000)) };
}

/** The part of libphonenumber-js/core the benches' counters hook into. */
export interface LibphonenumberCore {
  PhoneNumberMatcher: { prototype: { find(index: number): unknown } };
}
const libphonenumbers = new Map<Engine, LibphonenumberCore>();
const LIBPHONENUMBER_FILES = `${path.sep}libphonenumber-js${path.sep}`;

/**
 * Each engine its own copy of libphonenumber: an engine may set the library up (the current
 * one builds each metadata pattern's expression once, inside the library), and with one copy
 * shared the earlier engine would run with the later one's setup. The earlier engine loads its
 * copy first (its first phone check loads the library), then the library's modules are
 * dropped from the module cache, so the current engine's first phone check loads another.
 */
function ownLibphonenumber(old: Engine, current: Engine): void {
  if (libphonenumbers.has(old) && libphonenumbers.has(current)) return;
  const require = createRequire(import.meta.url);
  const probe = { entities: ['PHONE_NUMBER'], minThreshold: 0 } as const;
  old.detectPii('+1 303 555 0123', probe);
  libphonenumbers.set(old, require('libphonenumber-js/core') as LibphonenumberCore);
  for (const file of Object.keys(require.cache)) if (file.includes(LIBPHONENUMBER_FILES)) delete require.cache[file];
  current.detectPii('+1 303 555 0123', probe);
  libphonenumbers.set(current, require('libphonenumber-js/core') as LibphonenumberCore);
}

/** The copy of libphonenumber-js/core an engine compared by `alternatedCpu` runs with. */
function libphonenumberOf(engine: Engine): LibphonenumberCore {
  const core = libphonenumbers.get(engine);
  if (!core) throw new Error('libphonenumberOf: the engine has not been compared yet');
  return core;
}

/**
 * Searches by an engine's libphonenumber matchers per text (a matcher's search from the start
 * of the text it is given, made anew or reused), the engine compared by `alternatedCpu` first.
 */
export function phoneSearches(engine: Engine, texts: readonly string[], entities: readonly Pii.EntityType[]): number {
  const proto = libphonenumberOf(engine).PhoneNumberMatcher.prototype;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, below
  const find = proto.find;
  let n = 0;
  proto.find = function (this: unknown, index: number) {
    if (index === 0) n++;
    return find.call(this, index);
  };
  try {
    for (const t of texts) engine.detectPii(t, { entities, minThreshold: 0.5 });
  } finally {
    proto.find = find;
  }
  return n / texts.length;
}

/** CPU time of this process, µs. */
export function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/**
 * For each part (entity types asked for, threshold 0.5 as privacy at ingest asks): throws
 * when the engines' findings differ on any text, warms both, then times `runs` passes of each
 * over the texts, alternating which goes first. CPU µs per text, each run, by part.
 */
export function alternatedCpu(
  old: Engine,
  current: Engine,
  parts: Record<string, readonly Pii.EntityType[]>,
  texts: readonly string[],
  runs: number,
): Record<string, { before: number[]; after: number[] }> {
  ownLibphonenumber(old, current);
  const out: Record<string, { before: number[]; after: number[] }> = {};
  for (const [label, entities] of Object.entries(parts)) {
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
    const times = { before: [] as number[], after: [] as number[] };
    for (let r = 0; r < runs; r++) {
      const order = r % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const which of order) {
        const engine = which === 'before' ? old : current;
        const start = cpuMicros();
        for (const t of texts) engine.detectPii(t, options);
        times[which].push((cpuMicros() - start) / texts.length);
      }
    }
    out[label] = times;
  }
  return out;
}

/**
 * One function of the engine at an earlier commit against the current one, on texts neither has
 * seen: what they give is compared first on `compared` (throws when it differs), both are warmed,
 * then `pairs` pairs of new texts from `batch` are timed (CPU), which version runs first
 * alternating. Microseconds per text, median of the pairs, and the median of the pairs' ratios.
 */
export function alternatedPairs(
  before: (text: string) => unknown,
  current: (text: string) => unknown,
  compared: readonly string[],
  batch: () => readonly string[],
  pairs: number,
): { before: number; current: number; ratio: number } {
  for (const text of compared) {
    if (JSON.stringify(before(text)) !== JSON.stringify(current(text))) throw new Error(`results differ on ${JSON.stringify(text.slice(0, 80))}...`);
  }
  for (let r = 0; r < 3; r++) {
    for (const text of batch()) {
      before(text);
      current(text);
    }
  }
  const time = (f: (text: string) => unknown, texts: readonly string[]) => {
    const start = cpuMicros();
    for (const text of texts) f(text);
    return (cpuMicros() - start) / texts.length;
  };
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
  return { before: median(olds), current: median(news), ratio: median(ratios) };
}
