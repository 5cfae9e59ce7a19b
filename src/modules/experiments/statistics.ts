/**
 * The statistics behind reading and comparing runs (docs/experiments.md: "How the intervals are
 * made"). Pure functions over typed arrays: no I/O, no Math.random. Every resampling is driven by
 * a PRNG seeded from the names of what is resampled, so the same runs always give the same
 * interval.
 */

export const CONFIDENCE = 0.95;
/** Two-sided z for 95%. */
const Z = 1.959963984540054;
export const RESAMPLES = 1000;
/**
 * Past this many values the interval of a mean is the normal one (mean ± z·s/√n): a bootstrap
 * costs RESAMPLES × n draws (10 million for 10,000 rows, ~30 ms an interval, a dozen intervals a
 * comparison), and at these sizes the bootstrap's distribution of the mean is normal to well
 * within its own resampling noise.
 */
export const BOOTSTRAP_MAX_VALUES = 2_000;

/** FNV-1a (32 bit) of the parts joined by NUL: a PRNG seed that depends only on what is resampled. */
export function seedOf(...parts: string[]): number {
  let h = 0x811c9dc5;
  const s = parts.join('\u0000');
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // xorshift32 never leaves 0
  return h >>> 0 || 0x9e3779b9;
}

export interface Interval {
  low: number;
  high: number;
}

/**
 * Percentile bootstrap of the mean: `resamples` resamples of `values.length` draws with
 * replacement (xorshift32 seeded with `seed`), the 2.5th and 97.5th percentiles of their means;
 * past BOOTSTRAP_MAX_VALUES values the normal interval. Null for no values.
 */
export function bootstrapMean(values: Float64Array, seed: number, resamples = RESAMPLES): Interval | null {
  const n = values.length;
  if (n === 0) return null;
  if (n === 1) return { low: values[0], high: values[0] };
  if (n > BOOTSTRAP_MAX_VALUES) return normalMean(values);
  const means = new Float64Array(resamples);
  let s = seed >>> 0 || 0x9e3779b9;
  const scale = n / 4294967296;
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let k = 0; k < n; k++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      sum += values[((s >>> 0) * scale) | 0];
    }
    means[b] = sum / n;
  }
  means.sort();
  const tail = (1 - CONFIDENCE) / 2;
  return { low: means[Math.floor(resamples * tail)], high: means[Math.ceil(resamples * (1 - tail)) - 1] };
}

/** The normal interval of the mean: mean ± z times the standard error (sample deviation, n - 1). */
export function normalMean(values: Float64Array): Interval | null {
  const n = values.length;
  if (n === 0) return null;
  const m = mean(values);
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (values[i] - m) * (values[i] - m);
  const half = n > 1 ? Z * Math.sqrt(squares / (n - 1) / n) : 0;
  return { low: m - half, high: m + half };
}

/** Wilson score interval of a proportion `successes / n`; null for n = 0. */
export function wilson(successes: number, n: number): Interval | null {
  if (n === 0) return null;
  const p = successes / n;
  const z2 = Z * Z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * The q-quantile of ascending `sorted` (linear interpolation, as PostgreSQL's percentile_cont)
 * with a distribution-free interval: the order statistics whose ranks bound n*q by z standard
 * deviations of the binomial (normal approximation), clamped to the smallest and largest value.
 */
export function quantile(sorted: Float64Array, q: number): { value: number; low: number; high: number } | null {
  const n = sorted.length;
  if (n === 0) return null;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const value = lo + 1 < n ? sorted[lo] + (pos - lo) * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
  const spread = Z * Math.sqrt(n * q * (1 - q));
  const j = Math.min(n, Math.max(1, Math.floor(n * q - spread)));
  const k = Math.min(n, Math.max(1, Math.ceil(n * q + spread)));
  return { value, low: Math.min(sorted[j - 1], value), high: Math.max(sorted[k - 1], value) };
}

export const mean = (values: Float64Array): number => {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  return sum / values.length;
};

export type Verdict = 'better' | 'worse' | 'no detectable difference';

/**
 * Better or worse when the interval of (current - baseline) excludes 0, in the evaluator's
 * direction; otherwise no detectable difference.
 */
export function verdictOf(interval: Interval, higherIsBetter: boolean): Verdict {
  if (interval.low > 0) return higherIsBetter ? 'better' : 'worse';
  if (interval.high < 0) return higherIsBetter ? 'worse' : 'better';
  return 'no detectable difference';
}

/**
 * Paired differences in {-1, 0, 1} given by their counts: the bootstrap of their mean depends
 * only on the counts, so the array is built in a fixed order.
 */
export function signedCounts(minus: number, zero: number, plus: number): Float64Array {
  const out = new Float64Array(minus + zero + plus);
  out.fill(-1, 0, minus);
  out.fill(1, minus + zero);
  return out;
}
