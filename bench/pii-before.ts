/**
 * What the PII comparison benches share (pii-detect-compare, pii-phone-compare,
 * pii-detect-types): an earlier commit's engine taken out of git into
 * bench/.before/detect-<commit>, and detection of the privacy bench's texts by the earlier and
 * the current engine, alternated run by run in one process so that a loaded machine disturbs
 * both alike, findings compared first.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Pii from '../src/modules/evaluators/pii/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const PII = 'src/modules/evaluators/pii';

export type Engine = Pick<typeof Pii, 'detectPii'>;

/** A module of the engine as it was at `ref` (a file under src/modules/evaluators/pii). */
export async function importBefore<T>(ref: string, file: string): Promise<T> {
  const dir = path.join(here, '.before', `detect-${ref.slice(0, 12)}`);
  if (!fs.existsSync(path.join(dir, PII, 'index.ts'))) {
    fs.mkdirSync(dir, { recursive: true });
    const archive = execFileSync('git', ['archive', ref, PII], { cwd: path.resolve(here, '..'), maxBuffer: 64 << 20 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
  }
  return (await import(pathToFileURL(path.join(dir, PII, file)).href)) as T;
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
