import { expect } from 'vitest';

/** percentile_cont(p) of `values` computed here, independently of the server: linear between the ranks floor and ceil of p * (n - 1). */
export function exactPercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const pos = p * (sorted.length - 1);
  const lo = sorted[Math.floor(pos)];
  const hi = sorted[Math.ceil(pos)];
  return lo + (hi - lo) * (pos - Math.floor(pos));
}

/** The analytics' latency percentiles are within 1 % of the exact ones (their sketch's bound; docs/analytics.md). */
export function expectWithinSketchBound(actual: number | null, exact: number, what = 'percentile') {
  expect(actual, what).not.toBeNull();
  expect(Math.abs((actual as number) - exact), `${what}: ${actual} against the exact ${exact}`).toBeLessThanOrEqual(exact * 0.01 + 1e-9);
}
