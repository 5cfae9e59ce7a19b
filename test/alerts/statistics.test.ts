import { describe, expect, it } from 'vitest';
import { decide, measure } from '../../src/modules/alerts/measure.ts';
import { benjaminiHochberg, poissonTest, rankTest, rateInterval, twoProportionTest } from '../../src/modules/alerts/statistics.ts';

/** mulberry32: a seeded PRNG, so each simulation is the same on every run. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const binomial = (random: () => number, n: number, p: number) => {
  let x = 0;
  for (let i = 0; i < n; i++) if (random() < p) x++;
  return x;
};
const poisson = (random: () => number, mean: number): number => {
  // Knuth's method for small means; a large mean as the sum of small ones (exp(-mean) underflows).
  if (mean > 50) {
    let sum = 0;
    const parts = Math.ceil(mean / 50);
    for (let i = 0; i < parts; i++) sum += poisson(random, mean / parts);
    return sum;
  }
  const limit = Math.exp(-mean);
  let k = 0;
  let prod = random();
  while (prod > limit) {
    k++;
    prod *= random();
  }
  return k;
};
const ALPHA = 0.01;
const PER_WINDOW = 200;
/**
 * The reference period a change rule compares with: a day of 5-minute windows at the healthy
 * rate. At 200 traces a window even a perfectly known 5 % baseline is told from 10 % in one
 * window only 92 % of the time at alpha 0.01 (exact binomial), so a short, noisy reference
 * (24 windows: 88 %) cannot meet the 90 % within 2 windows.
 */
const REFERENCE_WINDOWS = 288;

describe('change rule on an error rate (two-proportion test against a reference period)', () => {
  it('fires in at most 2 % of 1,000 stationary windows at alpha 0.01', () => {
    const random = prng(40_001);
    const reference = { successes: binomial(random, PER_WINDOW * REFERENCE_WINDOWS, 0.05), n: PER_WINDOW * REFERENCE_WINDOWS };
    let fired = 0;
    for (let w = 0; w < 1000; w++) {
      const current = { successes: binomial(random, PER_WINDOW, 0.05), n: PER_WINDOW };
      if (twoProportionTest(current, reference, 'up')!.pValue < ALPHA) fired++;
    }
    expect(fired / 1000).toBeLessThanOrEqual(0.02);
  });

  it('fires within 2 windows of a doubling of a 5 % error rate at 200 traces a window in at least 90 % of 200 trials', () => {
    let detected = 0;
    for (let trial = 0; trial < 200; trial++) {
      const random = prng(1_000 + trial);
      const reference = { successes: binomial(random, PER_WINDOW * REFERENCE_WINDOWS, 0.05), n: PER_WINDOW * REFERENCE_WINDOWS };
      for (let w = 0; w < 2; w++) {
        const current = { successes: binomial(random, PER_WINDOW, 0.1), n: PER_WINDOW };
        if (twoProportionTest(current, reference, 'up')!.pValue < ALPHA) {
          detected++;
          break;
        }
      }
    }
    expect(detected / 200).toBeGreaterThanOrEqual(0.9);
  });

  it('keeps the family-wise false alarms of a rule split 50 ways within its budget (Benjamini-Hochberg), where testing each segment alone would not', () => {
    const random = prng(40_050);
    const segments = 50;
    const references = Array.from({ length: segments }, () => ({ successes: binomial(random, PER_WINDOW * REFERENCE_WINDOWS, 0.05), n: PER_WINDOW * REFERENCE_WINDOWS }));
    let windowsWithAlarm = 0;
    let windowsWithUncorrectedAlarm = 0;
    const windows = 400;
    for (let w = 0; w < windows; w++) {
      const pValues = references.map((reference) => twoProportionTest({ successes: binomial(random, PER_WINDOW, 0.05), n: PER_WINDOW }, reference, 'up')!.pValue);
      if (benjaminiHochberg(pValues, ALPHA).rejected.some(Boolean)) windowsWithAlarm++;
      if (pValues.some((p) => p < ALPHA)) windowsWithUncorrectedAlarm++;
    }
    expect(windowsWithAlarm / windows).toBeLessThanOrEqual(0.02);
    expect(windowsWithUncorrectedAlarm / windows).toBeGreaterThan(0.2);
  });

  it('still finds the one segment that changed among 50', () => {
    let found = 0;
    let wrong = 0;
    for (let trial = 0; trial < 100; trial++) {
      const random = prng(7_000 + trial);
      const pValues = Array.from({ length: 50 }, (_, s) => {
        const reference = { successes: binomial(random, PER_WINDOW * REFERENCE_WINDOWS, 0.05), n: PER_WINDOW * REFERENCE_WINDOWS };
        return twoProportionTest({ successes: binomial(random, PER_WINDOW, s === 17 ? 0.2 : 0.05), n: PER_WINDOW }, reference, 'up')!.pValue;
      });
      const { rejected } = benjaminiHochberg(pValues, ALPHA);
      if (rejected[17]) found++;
      wrong += rejected.filter((r, s) => r && s !== 17).length;
    }
    expect(found).toBeGreaterThanOrEqual(95);
    expect(wrong).toBeLessThanOrEqual(5);
  });

  it('gives a rate counted on a 10 % sample a wider interval, and a weaker test, than the same rate on all traces', () => {
    const all = rateInterval(100, 1000)!;
    const sampled = rateInterval(100, 1000, 0.1)!;
    expect(sampled.high - sampled.low).toBeGreaterThan(2.5 * (all.high - all.low));
    const reference = { successes: 500, n: 10_000 };
    const full = twoProportionTest({ successes: 80, n: 1000 }, reference, 'up')!;
    const tenth = twoProportionTest({ successes: 80, n: 1000, sampleRate: 0.1 }, { ...reference, sampleRate: 0.1 }, 'up')!;
    expect(full.pValue).toBeLessThan(ALPHA);
    expect(tenth.pValue).toBeGreaterThan(ALPHA);
  });
});

describe('rank test for latencies and scores', () => {
  const lognormal = (random: () => number, mu: number) => Math.exp(mu + 0.8 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()));

  it('holds its false-alarm rate on skewed, stationary latencies', () => {
    const random = prng(40_100);
    let fired = 0;
    for (let w = 0; w < 1000; w++) {
      const current = Array.from({ length: 50 }, () => lognormal(random, 6));
      const baseline = Array.from({ length: 200 }, () => lognormal(random, 6));
      if (rankTest(current, baseline, 'up')!.pValue < ALPHA) fired++;
    }
    expect(fired / 1000).toBeLessThanOrEqual(0.02);
  });

  it('detects latencies 50 % slower, and in the direction only', () => {
    let up = 0;
    let down = 0;
    for (let trial = 0; trial < 200; trial++) {
      const random = prng(9_000 + trial);
      const current = Array.from({ length: 100 }, () => lognormal(random, 6 + Math.log(1.5)));
      const baseline = Array.from({ length: 400 }, () => lognormal(random, 6));
      if (rankTest(current, baseline, 'up')!.pValue < ALPHA) up++;
      if (rankTest(current, baseline, 'down')!.pValue < ALPHA) down++;
    }
    expect(up / 200).toBeGreaterThanOrEqual(0.9);
    expect(down).toBe(0);
  });

  it('handles ties (scores on a 1..5 scale)', () => {
    const random = prng(40_200);
    let fired = 0;
    for (let w = 0; w < 1000; w++) {
      const score = () => 1 + Math.floor(random() * 5);
      if (rankTest(Array.from({ length: 60 }, score), Array.from({ length: 300 }, score), 'either')!.pValue < ALPHA) fired++;
    }
    expect(fired / 1000).toBeLessThanOrEqual(0.02);
  });
});

describe('Poisson test for counts', () => {
  it('holds its false-alarm rate on stationary counts, small and large', () => {
    for (const mean of [3, 40, 1500]) {
      const random = prng(40_300 + mean);
      let fired = 0;
      for (let w = 0; w < 1000; w++) {
        const current = mean > 100 ? Math.round(mean + Math.sqrt(mean) * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())) : poisson(random, mean);
        const baseline = mean > 100 ? Math.round(mean * 24 + Math.sqrt(mean * 24) * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())) : poisson(random, mean * 24);
        if (poissonTest(current, 1, baseline, 24, 'either').pValue < ALPHA) fired++;
      }
      expect(fired / 1000, `mean ${mean}`).toBeLessThanOrEqual(0.02);
    }
  });

  it('detects traffic falling by half at 60 traces a window', () => {
    let detected = 0;
    for (let trial = 0; trial < 200; trial++) {
      const random = prng(11_000 + trial);
      if (poissonTest(poisson(random, 30), 1, poisson(random, 60 * 24), 24, 'down').pValue < ALPHA) detected++;
    }
    expect(detected / 200).toBeGreaterThanOrEqual(0.9);
  });
});

describe("change rule on a numeric review score's mean (rank test on one mean per scored trace)", () => {
  const metric = { kind: 'score_mean' as const, configId: 'quality' };
  const condition = { kind: 'change' as const, alpha: ALPHA, consecutive: 1, minCount: 1, baseline: { kind: 'previous' as const } };
  const SCORED = 40;
  /** Scores 1..5 with these chances; a fifth of the traces has a second reviewer (the trace's value is the mean of its two). */
  const window = (random: () => number, chances: number[]) => {
    const pick = () => {
      let r = random();
      for (let s = 0; s < chances.length; s++) if ((r -= chances[s]) < 0) return s + 1;
      return chances.length;
    };
    const traceMeans: number[] = [];
    let count = 0;
    let total = 0;
    for (let i = 0; i < SCORED; i++) {
      const scores = random() < 0.2 ? [pick(), pick()] : [pick()];
      count += scores.length;
      total += scores.reduce((a, b) => a + b, 0);
      traceMeans.push(scores.reduce((a, b) => a + b, 0) / scores.length);
    }
    return measure(metric, { scores: { kind: 'numeric', count, total, inCategory: 0, traceMeans } }, false);
  };
  const HEALTHY = [0.05, 0.1, 0.25, 0.35, 0.25];
  /** The mean drops from 3.65 to 3.0. */
  const WORSE = [0.12, 0.2, 0.3, 0.25, 0.13];

  it('is decided by the rank test on the per-trace values (not as a share)', () => {
    const random = prng(40_100);
    const [d] = decide(metric, condition, window(random, WORSE), window(random, HEALTHY), 1);
    expect(d.current.values).toHaveLength(SCORED);
    const direct = rankTest(d.current.values!, d.baseline!.values!, 'down')!.pValue;
    expect(d.pValue).toBe(direct);
  });

  it('fires in at most 2 % of 1,000 stationary windows at alpha 0.01', () => {
    const random = prng(40_101);
    let fired = 0;
    let previous = window(random, HEALTHY);
    for (let w = 0; w < 1000; w++) {
      const current = window(random, HEALTHY);
      if (decide(metric, condition, current, previous, 1)[0].breach) fired++;
      previous = current;
    }
    expect(fired / 1000).toBeLessThanOrEqual(0.02);
  });

  it(`fires within 2 windows of a drop of the mean from 3.65 to 3.0 at ${SCORED} scored traces a window in at least 90 % of 200 trials`, () => {
    const random = prng(40_102);
    const reference = { kind: 'reference' as const, start: 0, end: 1 };
    let detected = 0;
    for (let trial = 0; trial < 200; trial++) {
      // The baseline: a reference period of 10 healthy windows (against the previous window, as noisy as the
      // current one, 40 traces against 40 tell this drop about two times in three).
      const pooled = Array.from({ length: 10 }, () => window(random, HEALTHY).get('')!);
      const values = Float64Array.from(pooled.flatMap((m) => [...m.values!])).sort();
      const healthy = new Map([['', { value: null, count: values.length, successes: 0, values }]]);
      const worse = [window(random, WORSE), window(random, WORSE)];
      if (worse.some((w) => decide(metric, { ...condition, baseline: reference }, w, healthy, 10)[0].breach)) detected++;
    }
    expect(detected / 200).toBeGreaterThanOrEqual(0.9);
  });
});
