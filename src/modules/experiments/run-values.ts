import type * as cstore from './comparison-store.ts';

/**
 * What reading and comparing runs computes from: a run's rows (per target) and evaluation
 * results (per target and evaluator) as typed arrays sorted by row index, read with one scan of
 * each table (cstore.runValueLists). The counts, the values behind each interval and the pairs
 * of two runs are computed here in one pass over the arrays, where SQL needed a sort per ordered
 * aggregate and a GROUP BY over both runs' results for the pairs (4x the time on PGlite).
 * Pure functions; kept-run-values.ts keeps them per process.
 */

export const PROCESSED = 0;
export const SKIPPED = 1;
export const ERROR = 2;
/** `verdict` of a result without one */
export const NO_VERDICT = -1;

interface Keyed {
  targetId: string;
  /** ascending, unique */
  idx: Int32Array;
}

export interface TargetRows extends Keyed {
  error: Uint8Array;
  /** NaN where none */
  duration: Float64Array;
  cost: Float64Array;
}

export interface EvaluatorResults extends Keyed {
  evaluator: string;
  processedName: string | null;
  anyName: string | null;
  /** PROCESSED, SKIPPED or ERROR */
  status: Uint8Array;
  /** 1 passed, 0 failed, NO_VERDICT */
  verdict: Int8Array;
  /** NaN where none */
  score: Float64Array;
  duration: Float64Array;
  cost: Float64Array;
}

export interface RunValues {
  /** by target id */
  rows: TargetRows[];
  /** by evaluator, then target id */
  evaluators: EvaluatorResults[];
}

/** Code-unit order of ids: the same on every database (PGlite's C collation orders them so too). */
export const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const numbers = (list: string, n: number): Float64Array => {
  const parts = list.split(',');
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = parts[i] === '' ? NaN : Number(parts[i]);
  return out;
};

/** The permutation sorting `idx` ascending, or null when it is sorted already (the usual case: rows come in index order). */
function sortingOrder(idx: Int32Array): Int32Array | null {
  let sorted = true;
  for (let i = 1; i < idx.length && sorted; i++) sorted = idx[i - 1] < idx[i];
  if (sorted) return null;
  return Int32Array.from(idx.keys()).sort((a, b) => idx[a] - idx[b]);
}

function reorder<T extends Int32Array | Uint8Array | Int8Array | Float64Array>(a: T, order: Int32Array | null): T {
  if (!order) return a;
  const out = new (a.constructor as new (n: number) => T)(a.length);
  for (let i = 0; i < order.length; i++) out[i] = a[order[i]];
  return out;
}

/** A group's keys, and how to put any of its aligned columns in the keys' ascending order. */
function keyedLists(l: { targetId: string; idx: string }) {
  const idx = Int32Array.from(l.idx.split(','), Number);
  const order = sortingOrder(idx);
  const sorted = <T extends Int32Array | Uint8Array | Int8Array | Float64Array>(column: T) => reorder(column, order);
  return { n: idx.length, keyed: { targetId: l.targetId, idx: sorted(idx) }, sorted };
}

export function parseRunValues(lists: { rows: cstore.TargetRowLists[]; evaluators: cstore.EvaluatorResultLists[] }): RunValues {
  const rows = lists.rows.map((l): TargetRows => {
    const { n, keyed, sorted } = keyedLists(l);
    const error = new Uint8Array(n);
    for (let i = 0; i < n; i++) error[i] = l.errors.charCodeAt(i) === 49 ? 1 : 0; // '1'
    return { ...keyed, error: sorted(error), duration: sorted(numbers(l.durations, n)), cost: sorted(numbers(l.costs, n)) };
  });
  const evaluators = lists.evaluators.map((l): EvaluatorResults => {
    const { n, keyed, sorted } = keyedLists(l);
    const status = new Uint8Array(n);
    const verdict = new Int8Array(n);
    for (let i = 0; i < n; i++) {
      const s = l.statuses[i];
      status[i] = s === 'p' ? PROCESSED : s === 'e' ? ERROR : SKIPPED;
      const v = l.verdicts[i];
      verdict[i] = v === 't' ? 1 : v === 'f' ? 0 : NO_VERDICT;
    }
    return {
      ...keyed,
      evaluator: l.evaluator,
      processedName: l.processedName,
      anyName: l.anyName,
      status: sorted(status),
      verdict: sorted(verdict),
      score: sorted(numbers(l.scores, n)),
      duration: sorted(numbers(l.durations, n)),
      cost: sorted(numbers(l.costs, n)),
    };
  });
  rows.sort((a, b) => byText(a.targetId, b.targetId));
  evaluators.sort((a, b) => byText(a.evaluator, b.evaluator) || byText(a.targetId, b.targetId));
  return { rows, evaluators };
}

/**
 * `value(part, i)` of every entry of `parts` (one per target, each sorted by index) in (index,
 * target) order, the order intervals resample in; NaN values are left out.
 */
function inKeyOrder<T extends Keyed>(parts: T[], value: (part: T, i: number) => number): Float64Array {
  const out: number[] = [];
  const sorted = [...parts].sort((a, b) => byText(a.targetId, b.targetId));
  const at = sorted.map(() => 0);
  for (;;) {
    let next = -1;
    for (let p = 0; p < sorted.length; p++) {
      if (at[p] < sorted[p].idx.length && (next < 0 || sorted[p].idx[at[p]] < sorted[next].idx[at[next]])) next = p;
    }
    if (next < 0) return Float64Array.from(out);
    const v = value(sorted[next], at[next]++);
    if (!Number.isNaN(v)) out.push(v);
  }
}

function ascending<T extends Keyed>(parts: T[], column: (part: T) => Float64Array): Float64Array {
  const out: number[] = [];
  for (const part of parts) for (const v of column(part)) if (!Number.isNaN(v)) out.push(v);
  return Float64Array.from(out).sort();
}

export interface RowGroup {
  rows: number;
  errors: number;
  /** ascending */
  durations: Float64Array;
  /** in (index, target) order */
  costs: Float64Array;
}

/** The rows of the given targets taken together. */
export function rowGroup(parts: TargetRows[]): RowGroup {
  let rows = 0;
  let errors = 0;
  for (const part of parts) {
    rows += part.idx.length;
    for (const e of part.error) errors += e;
  }
  return { rows, errors, durations: ascending(parts, (p) => p.duration), costs: inKeyOrder(parts, (p, i) => p.cost[i]) };
}

export interface EvaluatorGroup {
  evaluator: string;
  name: string | null;
  results: number;
  processed: number;
  skipped: number;
  errors: number;
  /** any status */
  passed: number;
  /** failed, or errored */
  failed: number;
  /** processed results with a verdict: passed, and all */
  ratePassed: number;
  rateN: number;
  /** processed results' scores, in (index, target) order */
  scores: Float64Array;
  /** ascending */
  durations: Float64Array;
  costs: Float64Array;
}

const maxName = (names: (string | null)[]) => names.reduce<string | null>((m, n) => (n !== null && (m === null || n > m) ? n : m), null);

/** One evaluator's results on the given targets taken together. */
export function evaluatorGroup(parts: EvaluatorResults[]): EvaluatorGroup {
  const g = { results: 0, processed: 0, skipped: 0, errors: 0, passed: 0, failed: 0, ratePassed: 0, rateN: 0 };
  for (const part of parts) {
    g.results += part.idx.length;
    for (let i = 0; i < part.idx.length; i++) {
      const status = part.status[i];
      const verdict = part.verdict[i];
      if (status === PROCESSED) g.processed++;
      else if (status === ERROR) g.errors++;
      else g.skipped++;
      if (verdict === 1) g.passed++;
      if (verdict === 0 || status === ERROR) g.failed++;
      if (status === PROCESSED && verdict !== NO_VERDICT) {
        g.rateN++;
        g.ratePassed += verdict;
      }
    }
  }
  return {
    evaluator: parts[0].evaluator,
    name: maxName(parts.map((p) => p.processedName)) ?? maxName(parts.map((p) => p.anyName)),
    ...g,
    scores: inKeyOrder(parts, (p, i) => (p.status[i] === PROCESSED ? p.score[i] : NaN)),
    durations: ascending(parts, (p) => p.duration),
    costs: inKeyOrder(parts, (p, i) => p.cost[i]),
  };
}

/** The evaluators' results grouped by evaluator (each with its targets' parts), by evaluator name. */
export function byEvaluator(values: RunValues, targetId?: string): EvaluatorResults[][] {
  const out = new Map<string, EvaluatorResults[]>();
  for (const part of values.evaluators) {
    if (targetId !== undefined && part.targetId !== targetId) continue;
    const parts = out.get(part.evaluator);
    if (parts) parts.push(part);
    else out.set(part.evaluator, [part]);
  }
  return [...out.values()];
}

// ---- two runs' pairs ----

export interface Flip {
  idx: number;
  targetId: string;
  evaluator: string;
  direction: 'regressed' | 'improved';
}

export interface EvaluatorPairs {
  evaluator: string;
  name: string | null;
  /** pairs both scored (processed, with a score) */
  scoreN: number;
  baseScore: number;
  curScore: number;
  /** current - baseline, in (index, target) order */
  scoreDiffs: Float64Array;
  /** pairs both judged (processed, with a verdict) */
  passN: number;
  basePassed: number;
  curPassed: number;
  /** passed in the baseline, failed now; and the reverse */
  passMinus: number;
  passPlus: number;
  /** passed in the baseline and fail or error now, and the reverse; in (index, target) order */
  flips: Flip[];
  regressions: number;
  improvements: number;
}

interface Pair {
  idx: number;
  targetId: string;
  a: EvaluatorResults;
  i: number;
  b: EvaluatorResults;
  j: number;
}

/** Positions of the indexes both ascending arrays hold. */
function matches(a: Int32Array, b: Int32Array, found: (i: number, j: number) => void): void {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] < b[j]) i++;
    else if (a[i] > b[j]) j++;
    else found(i++, j++);
  }
}

/**
 * Per evaluator, the results both runs hold for the same (index, target), paired: the values of
 * the paired differences and the results that flipped. Evaluators with no pair are left out.
 */
export function pairRuns(base: RunValues, current: RunValues): { shared: number; evaluators: EvaluatorPairs[] } {
  let shared = 0;
  for (const a of base.rows) {
    const b = current.rows.find((r) => r.targetId === a.targetId);
    if (b) matches(a.idx, b.idx, () => shared++);
  }
  const evaluators: EvaluatorPairs[] = [];
  for (const parts of byEvaluator(current)) {
    const pairs: Pair[] = [];
    for (const b of parts) {
      const a = base.evaluators.find((e) => e.evaluator === b.evaluator && e.targetId === b.targetId);
      if (a) matches(a.idx, b.idx, (i, j) => pairs.push({ idx: a.idx[i], targetId: a.targetId, a, i, b, j }));
    }
    if (!pairs.length) continue;
    // Parts are by target id, each by index: only several targets need the (index, target) order made.
    if (parts.length > 1) pairs.sort((x, y) => x.idx - y.idx || byText(x.targetId, y.targetId));
    const diffs: number[] = [];
    let baseSum = 0;
    let curSum = 0;
    const p = { passN: 0, basePassed: 0, curPassed: 0, passMinus: 0, passPlus: 0 };
    const flips: Flip[] = [];
    const names: (string | null)[] = [];
    const baseNames: (string | null)[] = [];
    for (const { idx, targetId, a, i, b, j } of pairs) {
      const aProcessed = a.status[i] === PROCESSED;
      const bProcessed = b.status[j] === PROCESSED;
      if (aProcessed && bProcessed && !Number.isNaN(a.score[i]) && !Number.isNaN(b.score[j])) {
        baseSum += a.score[i];
        curSum += b.score[j];
        diffs.push(b.score[j] - a.score[i]);
      }
      const av = a.verdict[i];
      const bv = b.verdict[j];
      if (aProcessed && bProcessed && av !== NO_VERDICT && bv !== NO_VERDICT) {
        p.passN++;
        p.basePassed += av;
        p.curPassed += bv;
        if (av === 1 && bv === 0) p.passMinus++;
        if (av === 0 && bv === 1) p.passPlus++;
      }
      if (av === 1 && (bv === 0 || b.status[j] === ERROR)) flips.push({ idx, targetId, evaluator: b.evaluator, direction: 'regressed' });
      else if ((av === 0 || a.status[i] === ERROR) && bv === 1) flips.push({ idx, targetId, evaluator: b.evaluator, direction: 'improved' });
    }
    for (const b of parts) names.push(b.anyName);
    for (const a of base.evaluators) if (a.evaluator === parts[0].evaluator) baseNames.push(a.anyName);
    evaluators.push({
      evaluator: parts[0].evaluator,
      name: maxName(names) ?? maxName(baseNames),
      scoreN: diffs.length,
      baseScore: baseSum / diffs.length,
      curScore: curSum / diffs.length,
      scoreDiffs: Float64Array.from(diffs),
      ...p,
      flips,
      regressions: flips.filter((f) => f.direction === 'regressed').length,
      improvements: flips.filter((f) => f.direction === 'improved').length,
    });
  }
  return { shared, evaluators };
}
