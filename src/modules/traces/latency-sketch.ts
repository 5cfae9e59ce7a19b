/**
 * The latency sketch's percentiles (migration 0076: a latency v > 0 ms in bucket
 * ceil(ln(v) / ln(gamma)), gamma = 101/99; 0 ms and below in bucket -1). The database buckets
 * the latencies (latency_sketch_bucket) and merges the counts; the percentiles of a merged
 * sketch are computed here, for the live charts and the rollups alike, so both answer the same
 * numbers to the last bit.
 */

const GAMMA = 101 / 99;

/**
 * The latency a sketch bucket stands for, as SQL's latency_sketch_value computes it: 2 gamma^b /
 * (gamma + 1), within 1 % of each latency in the bucket; 0 for bucket -1.
 */
export function latencyOfBucket(bucket: number): number {
  return bucket >= 0 ? (2 * Math.pow(GAMMA, bucket)) / (GAMMA + 1) : 0;
}

/**
 * percentile_cont(p) over the traces of a sketch (`buckets[i]` holding `counts[i]` traces, in any
 * order; a bucket may appear more than once), each latency replaced by its bucket's value: the
 * values at ranks floor and ceil of p * (n - 1), interpolated. Each value is within 1 % of the
 * latencies of its bucket, so each percentile is within 1 % of the exact one. Null when the
 * sketch holds no trace.
 */
export function sketchPercentiles(buckets: readonly number[], counts: readonly number[], ps: readonly number[]): number[] | null {
  const order = buckets.map((_, i) => i).sort((a, b) => buckets[a] - buckets[b]);
  let n = 0;
  for (const c of counts) n += c;
  if (n <= 0) return null;
  // The value of the trace at a rank (0-based) in latency order.
  const at = (rank: number): number => {
    let upto = 0;
    for (const i of order) {
      upto += counts[i];
      if (upto > rank) return latencyOfBucket(buckets[i]);
    }
    return latencyOfBucket(buckets[order[order.length - 1]]);
  };
  return ps.map((p) => {
    const pos = p * (n - 1);
    const lo = at(Math.floor(pos));
    const hi = at(Math.ceil(pos));
    return lo + (hi - lo) * (pos - Math.floor(pos));
  });
}
