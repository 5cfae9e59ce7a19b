import type { Executor } from '../../db/index.ts';
import * as cstore from './comparison-store.ts';
import { parseRunValues, type RunValues } from './run-values.ts';

/**
 * The run values a process keeps (run-values.ts), with what was computed from them, while the
 * run's results version is unchanged: every write of a run's rows or evaluations renews it
 * (experiment_results_versions), and the version is read with the run, so nothing stale is
 * served and several server processes each keep their own. Reading a finished run again, or
 * comparing it with another, then reads no results.
 */
interface Kept {
  version: string;
  values: Promise<RunValues>;
  /** what was computed from the values, by what it is */
  derived: Map<string, unknown>;
  bytes: number;
}

/** Runs kept, least recently used first (a Map iterates in insertion order). */
const kept = new Map<string, Kept>();
let keptBytes = 0;
/** About 60 runs of 10,000 rows with two evaluators. */
const KEPT_MAX_BYTES = 64 * 1024 * 1024;

const sizeOf = (v: RunValues) =>
  v.rows.reduce((s, r) => s + r.idx.byteLength + r.error.byteLength + r.duration.byteLength + r.cost.byteLength + 64, 0) +
  v.evaluators.reduce(
    (s, e) => s + e.idx.byteLength + e.status.byteLength + e.verdict.byteLength + e.score.byteLength + e.duration.byteLength + e.cost.byteLength + 128,
    0,
  );

/** Drops the least recently used runs past the budget (never `except`, the one just read). */
function evict(except: string): void {
  for (const [k, e] of kept) {
    if (keptBytes <= KEPT_MAX_BYTES) return;
    if (k === except) continue;
    kept.delete(k);
    keptBytes -= e.bytes;
  }
}

function entryOf(db: Executor, experimentId: string, run: { runId: string; resultsVersion: string }): Kept {
  const key = `${experimentId}\u0000${run.runId}`;
  const found = kept.get(key);
  kept.delete(key);
  if (found && found.version === run.resultsVersion) {
    kept.set(key, found); // most recently used last
    return found;
  }
  if (found) keptBytes -= found.bytes;
  const entry: Kept = { version: run.resultsVersion, values: cstore.runValueLists(db, experimentId, run.runId).then(parseRunValues), derived: new Map(), bytes: 0 };
  kept.set(key, entry);
  entry.values.then(
    (v) => {
      if (kept.get(key) !== entry) return;
      const bytes = sizeOf(v);
      // A run larger than the whole budget is computed from, not kept.
      if (bytes > KEPT_MAX_BYTES) {
        kept.delete(key);
        return;
      }
      entry.bytes = bytes;
      keptBytes += bytes;
      evict(key);
    },
    () => {
      if (kept.get(key) === entry) kept.delete(key);
    },
  );
  return entry;
}

/** A run's values at its current results version (read once per version and process). */
export function runValues(db: Executor, experimentId: string, run: { runId: string; resultsVersion: string }): Promise<RunValues> {
  return entryOf(db, experimentId, run).values;
}

/**
 * What `compute` makes of a run's values, under `what` (which must name everything else it
 * depends on): computed once per run version and process.
 */
export function derived<T>(db: Executor, experimentId: string, run: { runId: string; resultsVersion: string }, what: string, compute: (values: RunValues) => T | Promise<T>): Promise<T> {
  const entry = entryOf(db, experimentId, run);
  let out = entry.derived.get(what) as Promise<T> | undefined;
  if (!out) {
    // A run compared with many baselines in turn keeps only its last pairings.
    if (entry.derived.size >= 16) entry.derived.clear();
    out = entry.values.then(compute);
    entry.derived.set(what, out);
    out.catch(() => entry.derived.delete(what));
  }
  return out;
}
