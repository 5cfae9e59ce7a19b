import { describe, expect, it } from 'vitest';
import { holm, minimumDetectableEffect, pairedDifference, repeatedDifference, repeatedPairs, rowsNeeded, seedOf } from '../../src/modules/experiments/statistics.ts';
import { Rng } from '../support/fuzz.ts';

/** A standard normal draw (Box-Muller) from the seeded generator. */
const normal = (rng: Rng) => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());

/**
 * The comparison's statistics against known truth: simulated paired rows with a known mean
 * difference, seeded so every run of the test sees the same draws.
 */
describe('paired comparison statistics (simulated, known truth)', () => {
  it('the 95 % interval of a mean-score difference covers the true difference in 92-98 % of 200 simulations', () => {
    const rng = new Rng(39_001);
    const truth = 0.1;
    let covered = 0;
    for (let sim = 0; sim < 200; sim++) {
      const diffs = Float64Array.from({ length: 100 }, () => truth + 0.5 * normal(rng));
      const d = pairedDifference(diffs, seedOf('sim', String(sim)))!;
      if (d.interval.low <= truth && truth <= d.interval.high) covered++;
    }
    expect(covered / 200).toBeGreaterThanOrEqual(0.92);
    expect(covered / 200).toBeLessThanOrEqual(0.98);
  });

  it('the 95 % interval of a pass-rate difference covers the true difference in 92-98 % of 200 simulations', () => {
    // Each row: the baseline passes with 0.6, the run with 0.7, correlated through a shared row difficulty.
    const rng = new Rng(39_002);
    let covered = 0;
    let truth = 0;
    const rows = 200;
    for (let sim = 0; sim < 200; sim++) {
      const diffs = new Float64Array(rows);
      for (let i = 0; i < rows; i++) {
        const hard = rng.chance(0.3);
        const base = rng.chance(hard ? 0.2 : 0.7714285714285715);
        const current = rng.chance(hard ? 0.3 : 0.8714285714285714);
        diffs[i] = Number(current) - Number(base);
      }
      truth = 0.3 * (0.3 - 0.2) + 0.7 * (0.8714285714285714 - 0.7714285714285715);
      const d = pairedDifference(diffs, seedOf('pass', String(sim)))!;
      if (d.interval.low <= truth && truth <= d.interval.high) covered++;
    }
    expect(truth).toBeCloseTo(0.1, 9);
    expect(covered / 200).toBeGreaterThanOrEqual(0.92);
    expect(covered / 200).toBeLessThanOrEqual(0.98);
  });

  it('the minimum detectable effect is found 80 % of the time: power at 0.9x and 1.1x of it brackets 80 %', () => {
    const rng = new Rng(39_003);
    const n = 50;
    const sd = 1;
    const mde = minimumDetectableEffect(sd, n);
    const powerAt = (effect: number) => {
      let found = 0;
      const sims = 500;
      for (let sim = 0; sim < sims; sim++) {
        const diffs = Float64Array.from({ length: n }, () => effect + sd * normal(rng));
        const d = pairedDifference(diffs, seedOf('power', String(effect), String(sim)))!;
        if (d.pValue <= 0.05 && d.difference > 0) found++;
      }
      return found / sims;
    };
    const [below, at, above] = [powerAt(0.9 * mde), powerAt(mde), powerAt(1.1 * mde)];
    expect(below).toBeLessThan(0.8);
    expect(above).toBeGreaterThan(0.8);
    expect(Math.abs(at - 0.8)).toBeLessThan(0.05);
    // The rows needed for an effect is the n whose minimum detectable effect it is.
    expect(rowsNeeded(sd, mde)).toBe(n);
    expect(minimumDetectableEffect(sd, rowsNeeded(sd, 0.2))).toBeLessThanOrEqual(0.2);
  });

  it('thin data says so: one row, fewer than 20, or a constant non-zero shift; zero differences are no evidence of a change', () => {
    expect(pairedDifference(Float64Array.of(-1), 1)!.thin).toBe('too few rows');
    expect(pairedDifference(new Float64Array(19).fill(1), 1)!.thin).toBe('too few rows');
    expect(pairedDifference(new Float64Array(40).fill(0.6), 1)!.thin).toBe('no spread');
    const zero = pairedDifference(new Float64Array(40), 1)!;
    expect(zero).toMatchObject({ thin: null, pValue: 1 });
    // p <= 0.05 exactly when the percentile interval excludes 0
    const rng = new Rng(39_004);
    for (let sim = 0; sim < 50; sim++) {
      const diffs = Float64Array.from({ length: 30 }, () => 0.3 + normal(rng));
      const d = pairedDifference(diffs, sim)!;
      expect(d.pValue <= 0.05, String(sim)).toBe(d.interval.low > 0 || d.interval.high < 0);
    }
  });

  it('Holm: the smallest p-value times k, then step-down, never below an earlier one', () => {
    expect(holm([0.01, 0.04, 0.03])).toEqual([0.03, 0.06, 0.06]);
    expect(holm([0.5, 0.001])).toEqual([0.5, 0.002]);
    expect(holm([])).toEqual([]);
  });
});

describe('repetitions (simulated, known truth)', () => {
  it('splits the spread within rows from the spread between rows, and the interval over rows covers the truth where one over repeats does not', () => {
    const rng = new Rng(39_005);
    const [rows, k, between, within, truth] = [100, 5, 0.3, 0.6, 0.05];
    let covered = 0;
    let coveredNaive = 0;
    const estimates = { within: 0, between: 0 };
    const sims = 200;
    for (let sim = 0; sim < sims; sim++) {
      const data = Array.from({ length: rows }, () => {
        const rowEffect = truth + between * normal(rng);
        return Float64Array.from({ length: k }, () => rowEffect + within * normal(rng));
      });
      const d = repeatedDifference(data, seedOf('rep', String(sim)))!;
      if (d.interval!.low <= truth && truth <= d.interval!.high) covered++;
      estimates.within += d.withinRowVariance / sims;
      estimates.between += d.betweenRowVariance / sims;
      // treating the 500 repeats as 500 independent rows: too narrow
      const naive = pairedDifference(Float64Array.from(data.flatMap((r) => [...r])), seedOf('naive', String(sim)))!;
      if (naive.interval.low <= truth && truth <= naive.interval.high) coveredNaive++;
    }
    expect(covered / sims).toBeGreaterThanOrEqual(0.92);
    expect(covered / sims).toBeLessThanOrEqual(0.98);
    expect(coveredNaive / sims).toBeLessThan(0.9);
    expect(Math.abs(estimates.within / within ** 2 - 1)).toBeLessThan(0.1);
    expect(Math.abs(estimates.between / between ** 2 - 1)).toBeLessThan(0.1);
  });

  it('two runs of 3 tries a row, tries averaged within a row before pairing: the interval covers the true difference in 92-98 % of 200 simulations; within-row noise is both runs\' noise', () => {
    const rng = new Rng(39_044);
    const sims = 200;
    const rows = 60;
    const k = 3;
    const truth = 0.08;
    const rowSpread = 0.3; // how much rows differ in difficulty (the same in both runs)
    const effectSpread = 0.15; // how much the change helps one row more than another
    const noise = 0.25; // one try to the next, in each run
    let covered = 0;
    let within = 0;
    let between = 0;
    for (let sim = 0; sim < sims; sim++) {
      const base: Float64Array[] = [];
      const current: Float64Array[] = [];
      for (let i = 0; i < rows; i++) {
        const difficulty = rowSpread * normal(rng);
        const effect = truth + effectSpread * normal(rng);
        base.push(Float64Array.from({ length: k }, () => difficulty + noise * normal(rng)));
        current.push(Float64Array.from({ length: k }, () => difficulty + effect + noise * normal(rng)));
      }
      const d = repeatedDifference(repeatedPairs(base, current), seedOf('two-runs', String(sim)))!;
      if (d.interval!.low <= truth && truth <= d.interval!.high) covered++;
      within += d.withinRowVariance / sims;
      between += d.betweenRowVariance / sims;
    }
    expect(covered / sims).toBeGreaterThanOrEqual(0.92);
    expect(covered / sims).toBeLessThanOrEqual(0.98);
    // a try's difference carries the noise of both runs' tries; rows differ by the change's spread
    expect(Math.abs(within / (2 * noise ** 2) - 1)).toBeLessThan(0.1);
    expect(Math.abs(between / effectSpread ** 2 - 1)).toBeLessThan(0.2);
  });
});
