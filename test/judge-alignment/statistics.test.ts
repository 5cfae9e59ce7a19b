import { describe, expect, it } from 'vitest';
import { seedOf } from '../../src/modules/experiments/statistics.ts';
import {
  accuracy,
  bootstrapPairs,
  confusion,
  correctedPassRate,
  DEFAULT_TRUST_RULE,
  kappa,
  meanAbsoluteError,
  roganGladen,
  spearman,
  trueNegativeRate,
  truePositiveRate,
  trustOf,
} from '../../src/modules/judge-alignment/statistics.ts';
import { Rng } from '../support/fuzz.ts';

/**
 * A judge measured against people, against known truth: a simulated judge with a true-positive
 * rate of 0.9 and a true-negative rate of 0.7, seeded so every run sees the same draws.
 */
describe('judge alignment statistics (simulated, known truth)', () => {
  it('over 200 simulations of 400 labels, the 95 % intervals of kappa, TPR, TNR and the corrected pass rate cover the truth in 92-98 %', () => {
    const rng = new Rng(39_100);
    const TPR = 0.9;
    const TNR = 0.7;
    const labelledPrevalence = 0.4; // people pass 40 % of the labelled traces
    const productionRate = 0.5; // the true pass rate in production, which the judge misreports
    // kappa of this judge on this population: observed agreement against chance agreement
    const judgePasses = labelledPrevalence * TPR + (1 - labelledPrevalence) * (1 - TNR);
    const po = labelledPrevalence * TPR + (1 - labelledPrevalence) * TNR;
    const pe = labelledPrevalence * judgePasses + (1 - labelledPrevalence) * (1 - judgePasses);
    const trueKappa = (po - pe) / (1 - pe);
    const judged = 1_000;
    const covered = { kappa: 0, tpr: 0, tnr: 0, corrected: 0 };
    const inside = (e: { low: number; high: number } | null, truth: number) => (e !== null && e.low <= truth && truth <= e.high ? 1 : 0);
    const sims = 200;
    for (let sim = 0; sim < sims; sim++) {
      const human = new Float64Array(400);
      const judge = new Float64Array(400);
      for (let i = 0; i < 400; i++) {
        human[i] = rng.chance(labelledPrevalence) ? 1 : 0;
        judge[i] = human[i] === 1 ? Number(rng.chance(TPR)) : Number(!rng.chance(TNR));
      }
      let rawPassed = 0;
      for (let i = 0; i < judged; i++) {
        const truth = rng.chance(productionRate);
        if (truth ? rng.chance(TPR) : !rng.chance(TNR)) rawPassed++;
      }
      const seed = seedOf('alignment', String(sim));
      covered.kappa += inside(bootstrapPairs(human, judge, kappa(2, false), seed), trueKappa);
      covered.tpr += inside(bootstrapPairs(human, judge, truePositiveRate, seed), TPR);
      covered.tnr += inside(bootstrapPairs(human, judge, trueNegativeRate, seed), TNR);
      covered.corrected += inside(correctedPassRate(rawPassed, judged, human, judge, seed), productionRate);
    }
    for (const [name, count] of Object.entries(covered)) {
      expect(count / sims, name).toBeGreaterThanOrEqual(0.92);
      expect(count / sims, name).toBeLessThanOrEqual(0.98);
    }
  });

  it('the numbers on a small known table: confusion, accuracy, kappa, weighted kappa, TPR, TNR, Rogan-Gladen', () => {
    // people: 1,1,1,1,0,0,0,0,0,0; judge: 1,1,1,0,1,1,0,0,0,0
    const human = Float64Array.of(1, 1, 1, 1, 0, 0, 0, 0, 0, 0);
    const judge = Float64Array.of(1, 1, 1, 0, 1, 1, 0, 0, 0, 0);
    expect(confusion(human, judge, 2)).toEqual([
      [4, 2],
      [1, 3],
    ]);
    expect(accuracy(human, judge)).toBe(0.7);
    // po 0.7; pe = 0.4*0.5 + 0.6*0.5 = 0.5; kappa 0.4
    expect(kappa(2, false)(human, judge)).toBeCloseTo(0.4, 12);
    expect(truePositiveRate(human, judge)).toBe(0.75);
    expect(trueNegativeRate(human, judge)).toBeCloseTo(4 / 6, 12);
    // three ordered categories: a near miss costs a quarter of a far one
    const h3 = Float64Array.of(0, 1, 2, 2);
    const j3 = Float64Array.of(0, 2, 2, 0);
    // observed weights: 0, 0.25, 0, 1 -> 1.25; expected = sum w(a,b) r_a c_b / n with r = (1,1,2), c = (2,0,2)
    // (0,1) 0.25*1*0, (0,2) 1*1*2, (1,0) 0.25*1*2, (1,2) 0.25*1*2, (2,0) 1*2*2, (2,1) 0.25*2*0 -> 7, over n = 4
    const expected = 7 / 4;
    expect(kappa(3, true)(h3, j3)).toBeCloseTo(1 - 1.25 / expected, 12);
    expect(roganGladen(0.6, 0.9, 0.7)).toBeCloseTo(0.5, 12);
    expect(Number.isNaN(roganGladen(0.6, 0.5, 0.5))).toBe(true);
  });

  it('numbers: Spearman rho with ties and the mean absolute error', () => {
    const human = Float64Array.of(1, 2, 3, 4, 5);
    expect(spearman(human, Float64Array.of(10, 20, 30, 40, 50))).toBeCloseTo(1, 12);
    expect(spearman(human, Float64Array.of(5, 4, 3, 2, 1))).toBeCloseTo(-1, 12);
    // ties take their mean rank: ranks (1.5, 1.5, 3, 4, 5)
    expect(spearman(human, Float64Array.of(1, 1, 3, 4, 5))).toBeCloseTo(0.9746794344808963, 12);
    expect(Number.isNaN(spearman(human, Float64Array.of(2, 2, 2, 2, 2)))).toBe(true);
    expect(meanAbsoluteError(human, Float64Array.of(2, 2, 2, 2, 2))).toBe(1.4);
  });

  it('trust: the lower bound of kappa against the bar, on at least the minimum labels', () => {
    expect(trustOf({ value: 0.8, low: 0.65, high: 0.9, n: 60 }, 60, DEFAULT_TRUST_RULE)).toBe('trusted');
    expect(trustOf({ value: 0.8, low: 0.55, high: 0.9, n: 60 }, 60, DEFAULT_TRUST_RULE)).toBe('not trusted');
    expect(trustOf({ value: 0.95, low: 0.9, high: 1, n: 49 }, 49, DEFAULT_TRUST_RULE)).toBe('not enough labels');
    expect(trustOf(null, 80, DEFAULT_TRUST_RULE)).toBe('not enough labels');
  });
});
