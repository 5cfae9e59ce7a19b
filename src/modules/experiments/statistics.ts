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
  return percentiles(resampledMeans(values, seed, resamples));
}

/** The 2.5th and 97.5th percentiles of ascending resampled statistics. */
export function percentiles(sorted: Float64Array): Interval {
  const b = sorted.length;
  const tail = (1 - CONFIDENCE) / 2;
  return { low: sorted[Math.floor(b * tail)], high: sorted[Math.ceil(b * (1 - tail)) - 1] };
}

/** A PRNG (xorshift32) drawing indices below n: the one every resampling here uses. */
export function indexDrawer(seed: number): (n: number) => number {
  let s = seed >>> 0 || 0x9e3779b9;
  return (n: number) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (((s >>> 0) * n) / 4294967296) | 0;
  };
}

/** The means of `resamples` bootstrap resamples of `values`, ascending. */
export function resampledMeans(values: Float64Array, seed: number, resamples = RESAMPLES): Float64Array {
  const n = values.length;
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
  return means.sort();
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

export type Verdict = 'better' | 'worse' | 'no detectable difference' | 'not enough data';

/**
 * Fewer paired rows than this give "not enough data": a percentile bootstrap of a few rows
 * covers the truth far less often than 95 % (and one row gives a zero-width interval).
 */
export const MIN_PAIRED_ROWS = 20;
/** One-sided z for 80 % power. */
const Z_POWER = 0.8416212335729143;
export const POWER = 0.8;

/** The standard normal CDF (Abramowitz and Stegun 7.1.26, error below 1.5e-7). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(x) / Math.SQRT2));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}

/** The sample standard deviation (n - 1); 0 for fewer than two values. */
export function sampleSd(values: Float64Array): number {
  const n = values.length;
  if (n < 2) return 0;
  const m = mean(values);
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (values[i] - m) * (values[i] - m);
  return Math.sqrt(squares / (n - 1));
}

/** The smallest true mean difference a two-sided 95 % test of n pairs with this spread finds 80 % of the time. */
export function minimumDetectableEffect(sd: number, n: number): number {
  return ((Z + Z_POWER) * sd) / Math.sqrt(n);
}

/** The pairs needed to find a true mean difference of `effect` 80 % of the time; never below MIN_PAIRED_ROWS. */
export function rowsNeeded(sd: number, effect: number): number {
  // less a rounding error: the n whose own minimum detectable effect is `effect` needs no extra row
  return Math.max(MIN_PAIRED_ROWS, Math.ceil((((Z + Z_POWER) * sd) / effect) ** 2 - 1e-9));
}

/**
 * A paired difference read honestly: its interval, a two-sided p-value that agrees with it (p <= 0.05
 * exactly when the 95 % interval excludes 0), the minimum detectable effect for this n, and
 * whether there is enough data to say anything: not below MIN_PAIRED_ROWS, and not differences
 * that are all the same non-zero amount (no spread to measure: the interval would have no width).
 */
export interface PairedDifference {
  difference: number;
  interval: Interval;
  pValue: number;
  sd: number;
  minimumDetectableEffect: number;
  /** null when there is enough data; else why not */
  thin: null | 'too few rows' | 'no spread';
}

export function pairedDifference(values: Float64Array, seed: number): PairedDifference | null {
  const n = values.length;
  if (n === 0) return null;
  const m = mean(values);
  const sd = sampleSd(values);
  // spread below float rounding: scores shifted by the same amount do not subtract to one exact number
  const constant = sd <= 1e-9 * (1 + Math.abs(m));
  const thin = n < MIN_PAIRED_ROWS ? 'too few rows' : constant && m !== 0 ? 'no spread' : null;
  let interval: Interval;
  let pValue: number;
  if (n === 1 || constant) {
    interval = { low: m, high: m };
    pValue = m === 0 ? 1 : 0;
  } else if (n > BOOTSTRAP_MAX_VALUES) {
    interval = normalMean(values)!;
    pValue = Math.min(1, 2 * (1 - normalCdf(Math.abs(m) / (sd / Math.sqrt(n)))));
  } else {
    const means = resampledMeans(values, seed);
    interval = percentiles(means);
    let atOrBelow = 0;
    let atOrAbove = 0;
    for (const x of means) {
      if (x <= 0) atOrBelow++;
      if (x >= 0) atOrAbove++;
    }
    pValue = Math.min(1, (2 * Math.min(atOrBelow, atOrAbove)) / means.length);
  }
  return { difference: m, interval, pValue, sd, minimumDetectableEffect: minimumDetectableEffect(sd, n), thin };
}

/** Holm's step-down adjustment of p-values (same order as given): family-wise error held at the level for any number of tests. */
export function holm(pValues: number[]): number[] {
  const k = pValues.length;
  const order = pValues.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const adjusted = new Array<number>(k);
  let running = 0;
  order.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (k - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

/**
 * Better or worse when the (Holm-adjusted) p-value is at most 5 %, in the evaluator's direction;
 * otherwise no detectable difference. With one evaluator this is "the 95 % interval excludes 0".
 */
export function verdictOf(difference: number, adjustedP: number, higherIsBetter: boolean): Verdict {
  if (adjustedP > 1 - CONFIDENCE || difference === 0) return 'no detectable difference';
  return difference > 0 === higherIsBetter ? 'better' : 'worse';
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

/**
 * Paired differences of rows run k times each (a server run's repetitions, an SDK run's
 * repetition index): the interval resamples rows, not repetitions (a row's repeats are not
 * independent evidence), and the spread is split into the part within rows (the application's
 * and the judge's noise from one try to the next) and the part between rows (how much rows truly
 * differ): one-way random effects, method of moments.
 */
export interface RepeatedDifference {
  difference: number;
  interval: Interval | null;
  rows: number;
  /** variance of a row's repeats around the row's own mean */
  withinRowVariance: number;
  /** variance of the rows' true means, net of what the repeats' noise adds to them */
  betweenRowVariance: number;
}

export function repeatedDifference(rows: Float64Array[], seed: number): RepeatedDifference | null {
  const used = rows.filter((r) => r.length > 0);
  if (used.length === 0) return null;
  const rowMeans = Float64Array.from(used, (r) => mean(r));
  let within = 0;
  let withinRows = 0;
  let repeats = 0;
  for (const r of used) {
    repeats += r.length;
    if (r.length < 2) continue;
    within += sampleSd(r) ** 2;
    withinRows++;
  }
  const withinRowVariance = withinRows ? within / withinRows : 0;
  const meanRepeats = repeats / used.length;
  const betweenRowVariance = Math.max(0, sampleSd(rowMeans) ** 2 - withinRowVariance / meanRepeats);
  return {
    difference: mean(rowMeans),
    interval: bootstrapMean(rowMeans, seed),
    rows: used.length,
    withinRowVariance,
    betweenRowVariance,
  };
}

/**
 * Two runs' tries of the same rows as rows of differences, for repeatedDifference: a row's mean
 * difference is always the current tries' mean less the baseline's. With as many tries on both
 * sides the k-th try of one is paired with the k-th of the other (the differences then carry both
 * runs' noise); otherwise each try of the side with more is set against the other side's mean.
 * Rows either side has no try of are left out.
 */
export function repeatedPairs(base: Float64Array[], current: Float64Array[]): Float64Array[] {
  const out: Float64Array[] = [];
  for (let i = 0; i < base.length; i++) {
    const a = base[i];
    const b = current[i];
    if (!a?.length || !b?.length) continue;
    if (a.length === b.length) out.push(b.map((v, k) => v - a[k]));
    else if (b.length > a.length) {
      const m = mean(a);
      out.push(b.map((v) => v - m));
    } else {
      const m = mean(b);
      out.push(a.map((v) => m - v));
    }
  }
  return out;
}
