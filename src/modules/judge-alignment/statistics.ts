/**
 * How far a judge agrees with people (docs/judge-alignment.md). Pure functions over pairs of
 * (human, judge) values: no I/O, no Math.random. Every interval is a percentile bootstrap over
 * the pairs, driven by the experiments' seeded PRNG, so the same labels always give the same
 * interval.
 */
import { indexDrawer, percentiles, RESAMPLES, type Interval } from '../experiments/index.ts';

export interface Estimate {
  value: number;
  low: number;
  high: number;
  n: number;
}

/** A statistic of resampled pairs: NaN when it is undefined on a resample (one class only, say). */
type Statistic = (human: Float64Array, judge: Float64Array) => number;

/**
 * Percentile bootstrap of `stat` over the n pairs (resampled together), with the value on the
 * pairs themselves; resamples where it is undefined are dropped. Null when undefined on the data.
 */
export function bootstrapPairs(human: Float64Array, judge: Float64Array, stat: Statistic, seed: number, resamples = RESAMPLES): Estimate | null {
  const n = human.length;
  const value = stat(human, judge);
  if (n === 0 || !Number.isFinite(value)) return null;
  const draw = indexDrawer(seed);
  const h = new Float64Array(n);
  const j = new Float64Array(n);
  const values: number[] = [];
  for (let b = 0; b < resamples; b++) {
    for (let k = 0; k < n; k++) {
      const i = draw(n);
      h[k] = human[i];
      j[k] = judge[i];
    }
    const v = stat(h, j);
    if (Number.isFinite(v)) values.push(v);
  }
  if (values.length === 0) return { value, low: value, high: value, n };
  const ci: Interval = percentiles(Float64Array.from(values).sort());
  return { value, low: ci.low, high: ci.high, n };
}

// ---- categories (boolean: 1 pass, 0 fail; categorical: the category's position) ----

/** counts[human][judge] over k categories. */
export function confusion(human: Float64Array, judge: Float64Array, k: number): number[][] {
  const m = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let i = 0; i < human.length; i++) m[human[i]][judge[i]]++;
  return m;
}

export const accuracy: Statistic = (h, j) => {
  let same = 0;
  for (let i = 0; i < h.length; i++) if (h[i] === j[i]) same++;
  return same / h.length;
};

/**
 * Cohen's kappa over k categories; with `ordered`, weighted by the squared distance between
 * categories (quadratic weights: near misses cost less). NaN when chance agreement is total.
 */
export function kappa(k: number, ordered: boolean): Statistic {
  return (h, j) => {
    const n = h.length;
    const rowTotals = new Float64Array(k);
    const colTotals = new Float64Array(k);
    let observed = 0;
    const weight = (a: number, b: number) => (ordered && k > 1 ? ((a - b) / (k - 1)) ** 2 : a === b ? 0 : 1);
    for (let i = 0; i < n; i++) {
      rowTotals[h[i]]++;
      colTotals[j[i]]++;
      observed += weight(h[i], j[i]);
    }
    let expected = 0;
    for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) expected += (weight(a, b) * rowTotals[a] * colTotals[b]) / n;
    if (expected === 0) return NaN;
    return 1 - observed / expected;
  };
}

/** The share of people's passes the judge passes (sensitivity). */
export const truePositiveRate: Statistic = (h, j) => {
  let pos = 0;
  let hit = 0;
  for (let i = 0; i < h.length; i++) {
    if (h[i] !== 1) continue;
    pos++;
    if (j[i] === 1) hit++;
  }
  return pos === 0 ? NaN : hit / pos;
};

/** The share of people's fails the judge fails (specificity). */
export const trueNegativeRate: Statistic = (h, j) => {
  let neg = 0;
  let hit = 0;
  for (let i = 0; i < h.length; i++) {
    if (h[i] !== 0) continue;
    neg++;
    if (j[i] === 0) hit++;
  }
  return neg === 0 ? NaN : hit / neg;
};

// ---- numbers ----

/** Ranks from 1, ties given their mean rank. */
function ranks(values: Float64Array): Float64Array {
  const order = Array.from(values.keys()).sort((a, b) => values[a] - values[b]);
  const out = new Float64Array(values.length);
  for (let i = 0; i < order.length; ) {
    let e = i;
    while (e + 1 < order.length && values[order[e + 1]] === values[order[i]]) e++;
    for (let t = i; t <= e; t++) out[order[t]] = (i + e) / 2 + 1;
    i = e + 1;
  }
  return out;
}

/** Spearman's rho: the Pearson correlation of the ranks; NaN when either side is constant. */
export const spearman: Statistic = (h, j) => {
  const a = ranks(h);
  const b = ranks(j);
  const n = a.length;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i] / n;
    mb += b[i] / n;
  }
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) ** 2;
    sbb += (b[i] - mb) ** 2;
  }
  return saa === 0 || sbb === 0 ? NaN : sab / Math.sqrt(saa * sbb);
};

export const meanAbsoluteError: Statistic = (h, j) => {
  let sum = 0;
  for (let i = 0; i < h.length; i++) sum += Math.abs(h[i] - j[i]);
  return sum / h.length;
};

// ---- rates corrected for the judge's errors ----

/**
 * Rogan-Gladen: the true pass rate behind a judge's raw pass rate, given its true-positive and
 * true-negative rates: (raw + TNR - 1) / (TPR + TNR - 1), clamped to [0, 1]. NaN when the judge
 * is no better than a coin (TPR + TNR <= 1).
 */
export function roganGladen(raw: number, tpr: number, tnr: number): number {
  const youden = tpr + tnr - 1;
  if (!(youden > 0)) return NaN;
  return Math.min(1, Math.max(0, (raw + tnr - 1) / youden));
}

/**
 * The corrected pass rate with an interval carrying both uncertainties: each resample draws the
 * labelled pairs again (new TPR and TNR) and the judged results again (a new raw rate, drawn as
 * a binomial count of `judged` results), and corrects one with the other.
 */
export function correctedPassRate(
  rawPassed: number,
  judged: number,
  human: Float64Array,
  judge: Float64Array,
  seed: number,
  resamples = RESAMPLES,
): Estimate | null {
  if (judged === 0) return null;
  const raw = rawPassed / judged;
  const value = roganGladen(raw, truePositiveRate(human, judge), trueNegativeRate(human, judge));
  if (!Number.isFinite(value)) return null;
  const draw = indexDrawer(seed);
  const n = human.length;
  const values: number[] = [];
  for (let b = 0; b < resamples; b++) {
    let pos = 0;
    let tp = 0;
    let neg = 0;
    let tn = 0;
    for (let k = 0; k < n; k++) {
      const i = draw(n);
      if (human[i] === 1) {
        pos++;
        if (judge[i] === 1) tp++;
      } else {
        neg++;
        if (judge[i] === 0) tn++;
      }
    }
    // a binomial draw of the raw rate: past 2,000 results its normal approximation
    let passed = 0;
    if (judged <= 2_000) {
      for (let k = 0; k < judged; k++) if (draw(1_000_000) < raw * 1_000_000) passed++;
    } else {
      const u1 = (draw(1 << 30) + 0.5) / (1 << 30);
      const u2 = (draw(1 << 30) + 0.5) / (1 << 30);
      passed = judged * raw + Math.sqrt(judged * raw * (1 - raw)) * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }
    const v = pos && neg ? roganGladen(passed / judged, tp / pos, tn / neg) : NaN;
    if (Number.isFinite(v)) values.push(v);
  }
  if (values.length === 0) return { value, low: value, high: value, n };
  const ci = percentiles(Float64Array.from(values).sort());
  return { value, low: ci.low, high: ci.high, n };
}

// ---- trusted or not ----

export interface TrustRule {
  /** the statistic whose lower bound is held to `atLeast`: kappa for categories, spearman for numbers */
  statistic: 'kappa' | 'accuracy' | 'spearman';
  atLeast: number;
  minimumLabels: number;
}

export const DEFAULT_TRUST_RULE: TrustRule = { statistic: 'kappa', atLeast: 0.6, minimumLabels: 50 };

export type Trust = 'trusted' | 'not trusted' | 'not enough labels';

/** Trusted when the interval's lower bound meets the bar on at least the minimum labels. */
export function trustOf(estimate: Estimate | null, n: number, rule: TrustRule): Trust {
  if (n < rule.minimumLabels || estimate === null) return 'not enough labels';
  return estimate.low >= rule.atLeast ? 'trusted' : 'not trusted';
}

// ---- self-consistency: the judge against itself ----

/** How often two repeats of one item disagree: the share of the item's pairs of repeats that differ. */
export function pairwiseDisagreement(values: number[], differ: (a: number, b: number) => boolean): number {
  let pairs = 0;
  let differing = 0;
  for (let a = 0; a < values.length; a++) {
    for (let b = a + 1; b < values.length; b++) {
      pairs++;
      if (differ(values[a], values[b])) differing++;
    }
  }
  return pairs === 0 ? NaN : differing / pairs;
}
