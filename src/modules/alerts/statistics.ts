/**
 * The statistics behind a change rule (docs/alerts.md: "How a change is decided"). Pure
 * functions: no I/O, no Math.random. Each test answers a p-value for "the current window
 * moved in the rule's direction against its baseline", and an interval of the current value,
 * so an evaluation can be stored with everything it saw.
 *
 * - rates (error rate, pass rate, thumbs-down rate, a category's share): Fisher's exact test
 *   for small counts, the pooled two-proportion z-test for large ones; a rate counted on a sample (a monitor that samples 10 % of
 *   traces) is tested on the counts it really saw, so its interval is wider;
 * - latencies, costs, tokens and scores: the Mann-Whitney rank test (normal approximation with
 *   the tie correction): no assumption on the shape of the distribution;
 * - counts (trace count): the conditional Poisson test: given both counts, the current count is
 *   binomial with the share of exposure the current window has;
 * - a rule split by segment decides all segments of a window together with Benjamini-Hochberg
 *   at the rule's alpha, so 50 segments do not fire by chance 50 times as often as one.
 */

/** Which move of the value a rule is about: a one-sided test each way, or two-sided. */
export type Direction = 'up' | 'down' | 'either';

export interface Interval {
  low: number;
  high: number;
}

export interface TestResult {
  /** The statistic (z for rates and ranks, z of the binomial for counts). */
  statistic: number;
  /** The probability, were nothing changed, of a move at least this large in the direction. */
  pValue: number;
}

/** Two-sided z for 95 %. */
const Z95 = 1.959963984540054;

/** The standard normal CDF, through erfc by the Chebyshev fit of Numerical Recipes (erfcc): relative error < 1.2e-7. */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const erfc =
    t *
    Math.exp(
      -x * x -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return z >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/** The p-value of a z statistic in the direction (up: large z is the move). */
export function pOfZ(z: number, direction: Direction): number {
  if (Number.isNaN(z)) return 1;
  if (direction === 'up') return 1 - normalCdf(z);
  if (direction === 'down') return normalCdf(z);
  return Math.min(1, 2 * (1 - normalCdf(Math.abs(z))));
}

/**
 * Wilson score interval of `successes / n`. `sampleRate` (0..1]: the counts are estimates
 * scaled up from a sample of that share, so the interval is the one of the counts really seen
 * (`n * sampleRate`): a 10 % sample gives a wider interval than all traces.
 */
export function rateInterval(successes: number, n: number, sampleRate = 1): Interval | null {
  const seen = n * sampleRate;
  if (seen <= 0) return null;
  const p = successes / n;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * seen)) / (1 + z2 / seen);
  const half = (Z95 * Math.sqrt((p * (1 - p)) / seen + z2 / (4 * seen * seen))) / (1 + z2 / seen);
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface RateCounts {
  successes: number;
  n: number;
  /** The share of traces the counts were measured on (a sampled monitor); 1: all. */
  sampleRate?: number;
}

/**
 * Past this many possible counts the two-proportion test is the z-test; below it Fisher's exact
 * test. A window of 200 traces at 5 % has 10 errors: the z-test's tail there is too light, and
 * a rule split 50 ways (each segment tested at alpha/50 by Benjamini-Hochberg) fired by chance
 * 5 times as often as its budget.
 */
export const EXACT_MAX_SUPPORT = 20_000;

/**
 * Two-proportion test of current against baseline, on the counts each really saw: Fisher's
 * exact test (mid-p, conditional on both totals) for small counts, the pooled z-test for large ones.
 * Null without data on either side.
 */
export function twoProportionTest(current: RateCounts, baseline: RateCounts, direction: Direction): TestResult | null {
  const n1 = Math.round(current.n * (current.sampleRate ?? 1));
  const n0 = Math.round(baseline.n * (baseline.sampleRate ?? 1));
  if (n1 <= 0 || n0 <= 0) return null;
  const x1 = Math.round((current.successes / current.n) * n1);
  const x0 = Math.round((baseline.successes / baseline.n) * n0);
  const pooled = (x1 + x0) / (n1 + n0);
  const variance = pooled * (1 - pooled) * (1 / n1 + 1 / n0);
  if (variance === 0) return { statistic: 0, pValue: 1 };
  const z = (x1 / n1 - x0 / n0) / Math.sqrt(variance);
  const k = x1 + x0;
  if (Math.min(k, n1 + n0 - k, n1) > EXACT_MAX_SUPPORT) return { statistic: z, pValue: pOfZ(z, direction) };
  return { statistic: z, pValue: fisherP(x1, n1, k, n1 + n0, direction) };
}

/** Fisher's exact test (mid-p): X ~ Hypergeometric(total, successes, drawn), observed x; one-sided each way, two-sided as twice the smaller. */
function fisherP(x: number, drawn: number, successes: number, total: number, direction: Direction): number {
  const lo = Math.max(0, drawn - (total - successes));
  const hi = Math.min(drawn, successes);
  const logPmf = (k: number) => logChoose(successes, k) + logChoose(total - successes, drawn - k) - logChoose(total, drawn);
  // Mid-p: half the observed count's own probability on each side. Plain Fisher is too cautious
  // at these counts (it missed a doubled 5 % error rate in 1 of 6 pairs of windows).
  const observed = Math.exp(logPmf(x)) / 2;
  let up = observed;
  for (let k = x + 1; k <= hi; k++) up += Math.exp(logPmf(k));
  let down = observed;
  for (let k = lo; k < x; k++) down += Math.exp(logPmf(k));
  const p = direction === 'up' ? up : direction === 'down' ? down : 2 * Math.min(up, down);
  return Math.min(1, p);
}

const logChoose = (n: number, k: number) => logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);

/** ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms): about 15 significant digits. */
export function logGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const y = x - 1;
  let a = c[0];
  const t = y + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (y + i);
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
}

/**
 * Mann-Whitney U test of current against baseline values (normal approximation, mid-ranks
 * for ties with the tie-corrected variance). Up: current values tend to be larger. Null when
 * either side is empty.
 */
export function rankTest(current: ArrayLike<number>, baseline: ArrayLike<number>, direction: Direction): TestResult | null {
  const n1 = current.length;
  const n0 = baseline.length;
  if (n1 === 0 || n0 === 0) return null;
  const n = n1 + n0;
  const values = new Float64Array(n);
  for (let i = 0; i < n1; i++) values[i] = current[i];
  for (let i = 0; i < n0; i++) values[n1 + i] = baseline[i];
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => values[a] - values[b]);
  let rankSumCurrent = 0;
  let ties = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && values[order[j + 1]] === values[order[i]]) j++;
    const midRank = (i + j + 2) / 2;
    const t = j - i + 1;
    if (t > 1) ties += t * t * t - t;
    for (let k = i; k <= j; k++) if (order[k] < n1) rankSumCurrent += midRank;
    i = j + 1;
  }
  const u = rankSumCurrent - (n1 * (n1 + 1)) / 2;
  const meanU = (n1 * n0) / 2;
  const varianceU = ((n1 * n0) / 12) * (n + 1 - ties / (n * (n - 1)));
  if (varianceU <= 0) return { statistic: 0, pValue: 1 };
  // Continuity correction toward the mean.
  const diff = u - meanU;
  const corrected = diff === 0 ? 0 : diff - 0.5 * Math.sign(diff);
  const z = corrected / Math.sqrt(varianceU);
  return { statistic: z, pValue: pOfZ(z, direction) };
}

/**
 * Conditional Poisson test of two counts over exposures (window lengths): given the total,
 * the current count is Binomial(total, share of exposure). Exact below 1,000 events, the
 * normal approximation (with continuity correction) above.
 */
export function poissonTest(current: number, currentExposure: number, baseline: number, baselineExposure: number, direction: Direction): TestResult {
  const total = current + baseline;
  const share = currentExposure / (currentExposure + baselineExposure);
  if (total === 0) return { statistic: 0, pValue: 1 };
  const sd = Math.sqrt(total * share * (1 - share));
  const z = sd === 0 ? 0 : (current - total * share) / sd;
  if (total >= 1000) {
    const c = z === 0 ? 0 : (current - total * share - 0.5 * Math.sign(current - total * share)) / sd;
    return { statistic: z, pValue: pOfZ(c, direction) };
  }
  const pmf = binomialPmf(total, share);
  const up = sumFrom(pmf, current, total);
  const down = sumFrom(pmf, 0, current);
  const p = direction === 'up' ? up : direction === 'down' ? down : Math.min(1, 2 * Math.min(up, down));
  return { statistic: z, pValue: Math.min(1, p) };
}

function binomialPmf(n: number, p: number): Float64Array {
  const out = new Float64Array(n + 1);
  if (p <= 0) out[0] = 1;
  else if (p >= 1) out[n] = 1;
  else {
    const lp = Math.log(p);
    const lq = Math.log(1 - p);
    let logChoose = 0;
    for (let k = 0; k <= n; k++) {
      if (k > 0) logChoose += Math.log((n - k + 1) / k);
      out[k] = Math.exp(logChoose + k * lp + (n - k) * lq);
    }
  }
  return out;
}

const sumFrom = (pmf: Float64Array, from: number, to: number) => {
  let s = 0;
  for (let k = from; k <= to; k++) s += pmf[k];
  return s;
};

/** The Poisson interval of a rate of events per unit of exposure (normal approximation on the square root). */
export function countInterval(count: number, exposure: number): Interval {
  const root = Math.sqrt(count);
  const low = Math.max(0, root - Z95 / 2) ** 2;
  const high = (root + Z95 / 2) ** 2;
  return { low: low / exposure, high: high / exposure };
}

/** The interval of a median of values (distribution-free, order statistics around n/2), null when empty. */
export function medianInterval(values: ArrayLike<number>): Interval | null {
  const n = values.length;
  if (n === 0) return null;
  const sorted = Float64Array.from(values).sort();
  const spread = Z95 * Math.sqrt(n * 0.25);
  const j = Math.min(n, Math.max(1, Math.floor(n / 2 - spread)));
  const k = Math.min(n, Math.max(1, Math.ceil(n / 2 + spread)));
  return { low: sorted[j - 1], high: sorted[k - 1] };
}

/**
 * Benjamini-Hochberg at level `alpha`: which hypotheses are rejected (true) among `pValues`
 * (null: not tested, never rejected), and each one's adjusted p-value (the smallest alpha
 * that would reject it).
 */
export function benjaminiHochberg(pValues: readonly (number | null)[], alpha: number): { rejected: boolean[]; adjusted: (number | null)[] } {
  const tested = pValues.map((p, i) => ({ p, i })).filter((x): x is { p: number; i: number } => x.p !== null);
  const m = tested.length;
  const rejected = pValues.map(() => false);
  const adjusted: (number | null)[] = pValues.map(() => null);
  tested.sort((a, b) => a.p - b.p);
  let running = 1;
  for (let r = m - 1; r >= 0; r--) {
    running = Math.min(running, (tested[r].p * m) / (r + 1));
    adjusted[tested[r].i] = running;
  }
  for (const t of tested) rejected[t.i] = (adjusted[t.i] as number) <= alpha;
  return { rejected, adjusted };
}
