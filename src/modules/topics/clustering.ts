/**
 * Topics as clusters of input embeddings: spherical k-means (cosine), the number of topics chosen
 * by the silhouette on a sample, then the whole set clustered from the sample's centroids.
 *
 * Why this shape: 100,000 embeddings must cluster in under a minute in one Node process. The
 * choice of k is the costly part (a clustering per candidate), so it runs on a sample of at
 * most 1,500 points whose pairwise similarities are computed once; the full set then needs one
 * k-means of a few passes. Everything is seeded, so the same embeddings give the same topics.
 */

/** n vectors of d dimensions, row after row. */
export interface Embeddings {
  n: number;
  d: number;
  data: Float32Array;
}

export interface ClusteringOptions {
  seed?: number;
  minK?: number;
  maxK?: number;
  /** Points the number of topics is chosen on. */
  sampleSize?: number;
  /** k-means passes over the whole set. */
  iterations?: number;
}

export interface Clustering {
  k: number;
  /** Unit-length centroids, k rows of d. */
  centroids: Float32Array;
  /** The topic of each point (0..k-1). */
  assignment: Int32Array;
  /** Each point's cosine similarity to its centroid. */
  similarity: Float32Array;
  sizes: number[];
  /** The mean silhouette of the chosen k on the sample (-1..1). */
  silhouette: number;
}

/** mulberry32: a small seeded generator (the clustering must not depend on Math.random). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Scales each row to unit length in place (a zero row stays zero). */
export function normalizeRows(e: Embeddings): void {
  const { n, d, data } = e;
  for (let i = 0; i < n; i++) {
    let s = 0;
    const o = i * d;
    for (let j = 0; j < d; j++) s += data[o + j] * data[o + j];
    if (s === 0) continue;
    const inv = 1 / Math.sqrt(s);
    for (let j = 0; j < d; j++) data[o + j] *= inv;
  }
}

/** Lets the event loop run (requests, ingest) between slices of a long clustering. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Points per slice between yields: a few milliseconds of work at 256 dimensions and 20 topics. */
const SLICE = 2_000;

function dot(a: Float32Array, ao: number, b: Float32Array, bo: number, d: number): number {
  let s = 0;
  for (let j = 0; j < d; j++) s += a[ao + j] * b[bo + j];
  return s;
}

/** The nearest of k unit centroids to a unit vector, and its similarity. */
export function nearestCentroid(centroids: Float32Array, k: number, v: Float32Array, vo = 0): { index: number; similarity: number } {
  const d = centroids.length / k;
  let best = -1;
  let bestSim = -Infinity;
  for (let c = 0; c < k; c++) {
    const s = dot(centroids, c * d, v, vo, d);
    if (s > bestSim) {
      bestSim = s;
      best = c;
    }
  }
  return { index: best, similarity: bestSim };
}

/** k-means++ seeding on cosine distance: each next centre drawn in proportion to its distance from the chosen ones. */
function seedCentroids(e: Embeddings, rows: Int32Array, k: number, random: () => number): Float32Array {
  const { d, data } = e;
  const m = rows.length;
  const centroids = new Float32Array(k * d);
  const first = rows[Math.floor(random() * m)];
  centroids.set(data.subarray(first * d, first * d + d), 0);
  const dist = new Float64Array(m).fill(Infinity);
  for (let c = 1; c < k; c++) {
    let total = 0;
    // (The sample is at most a few thousand points: no yield needed here.)
    for (let i = 0; i < m; i++) {
      const dd = Math.max(0, 1 - dot(data, rows[i] * d, centroids, (c - 1) * d, d));
      if (dd < dist[i]) dist[i] = dd;
      total += dist[i] * dist[i];
    }
    let pick = rows[Math.floor(random() * m)];
    if (total > 0) {
      let r = random() * total;
      for (let i = 0; i < m; i++) {
        r -= dist[i] * dist[i];
        if (r <= 0) {
          pick = rows[i];
          break;
        }
      }
    }
    centroids.set(data.subarray(pick * d, pick * d + d), c * d);
  }
  return centroids;
}

/**
 * Spherical k-means over `rows` of `e` from `centroids` (updated in place). Returns each row's
 * cluster and the sum of similarities (higher is tighter). An emptied cluster takes the point
 * farthest from its centroid.
 */
async function kmeans(e: Embeddings, rows: Int32Array, centroids: Float32Array, k: number, iterations: number): Promise<{ assignment: Int32Array; similarity: Float32Array; score: number }> {
  const { d, data } = e;
  const m = rows.length;
  const assignment = new Int32Array(m).fill(-1);
  const similarity = new Float32Array(m);
  const sums = new Float64Array(k * d);
  const counts = new Int32Array(k);
  let score = 0;
  for (let it = 0; it < iterations; it++) {
    await yieldToLoop();
    let changed = 0;
    score = 0;
    for (let i = 0; i < m; i++) {
      if (i % SLICE === SLICE - 1) await yieldToLoop();
      const { index, similarity: s } = nearestCentroid(centroids, k, data, rows[i] * d);
      if (assignment[i] !== index) changed++;
      assignment[i] = index;
      similarity[i] = s;
      score += s;
    }
    if (changed === 0 && it > 0) break;
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < m; i++) {
      const c = assignment[i];
      counts[c]++;
      const o = rows[i] * d;
      for (let j = 0; j < d; j++) sums[c * d + j] += data[o + j];
    }
    for (let c = 0; c < k; c++) {
      if (counts[c] === 0) {
        // The worst-fitting point starts the empty cluster again.
        let worst = 0;
        for (let i = 1; i < m; i++) if (similarity[i] < similarity[worst]) worst = i;
        centroids.set(data.subarray(rows[worst] * d, rows[worst] * d + d), c * d);
        similarity[worst] = 1;
        continue;
      }
      let s = 0;
      for (let j = 0; j < d; j++) s += sums[c * d + j] * sums[c * d + j];
      const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
      for (let j = 0; j < d; j++) centroids[c * d + j] = sums[c * d + j] * inv;
    }
  }
  return { assignment, similarity, score };
}

/** The mean silhouette of a clustering of m points, from their pairwise cosine similarities. */
async function silhouette(sim: Float32Array, m: number, assignment: Int32Array, k: number): Promise<number> {
  const sizes = new Int32Array(k);
  for (let i = 0; i < m; i++) sizes[assignment[i]]++;
  const perCluster = new Float64Array(k);
  let total = 0;
  for (let i = 0; i < m; i++) {
    if (i % 500 === 499) await yieldToLoop();
    perCluster.fill(0);
    for (let j = 0; j < m; j++) if (j !== i) perCluster[assignment[j]] += 1 - sim[i * m + j];
    const own = assignment[i];
    if (sizes[own] <= 1) continue;
    const a = perCluster[own] / (sizes[own] - 1);
    let b = Infinity;
    for (let c = 0; c < k; c++) if (c !== own && sizes[c] > 0) b = Math.min(b, perCluster[c] / sizes[c]);
    if (b === Infinity) continue;
    const denom = Math.max(a, b);
    total += denom > 0 ? (b - a) / denom : 0;
  }
  return total / m;
}

/**
 * Seedings tried per k on the sample, the tightest kept: k-means finds a local optimum, and one
 * unlucky seeding must not decide the number of topics. More where the sample is small (cheap),
 * at least two where it is large.
 */
function restarts(m: number, k: number, d: number): number {
  return Math.max(2, Math.min(10, Math.floor(2e7 / (m * k * d))));
}

/** Clusters unit-length embeddings into topics; the number of topics is chosen on a sample. */
export async function clusterEmbeddings(e: Embeddings, options: ClusteringOptions = {}): Promise<Clustering> {
  const { n, d, data } = e;
  if (n === 0) return { k: 0, centroids: new Float32Array(0), assignment: new Int32Array(0), similarity: new Float32Array(0), sizes: [], silhouette: 0 };
  const random = seededRandom(options.seed ?? 1);
  const sampleSize = Math.min(n, options.sampleSize ?? 1500);
  // A sample without repeats (a partial Fisher-Yates over the indices).
  const indices = new Int32Array(n);
  for (let i = 0; i < n; i++) indices[i] = i;
  for (let i = 0; i < sampleSize; i++) {
    const j = i + Math.floor(random() * (n - i));
    [indices[i], indices[j]] = [indices[j], indices[i]];
  }
  const sample = indices.slice(0, sampleSize);
  const sim = new Float32Array(sampleSize * sampleSize);
  for (let i = 0; i < sampleSize; i++) {
    if (i % 100 === 99) await yieldToLoop();
    sim[i * sampleSize + i] = 1;
    for (let j = i + 1; j < sampleSize; j++) {
      const s = dot(data, sample[i] * d, data, sample[j] * d, d);
      sim[i * sampleSize + j] = s;
      sim[j * sampleSize + i] = s;
    }
  }
  const minK = Math.max(1, options.minK ?? 2);
  const maxK = Math.max(minK, Math.min(options.maxK ?? 20, Math.floor(sampleSize / 2)));
  let best: { k: number; centroids: Float32Array; silhouette: number } | null = null;
  for (let k = minK; k <= maxK; k++) {
    let chosen: { centroids: Float32Array; assignment: Int32Array; score: number } | null = null;
    for (let attempt = 0; attempt < restarts(sampleSize, k, d); attempt++) {
      const centroids = seedCentroids(e, sample, k, random);
      const run = await kmeans(e, sample, centroids, k, 25);
      if (!chosen || run.score > chosen.score) chosen = { centroids, assignment: run.assignment, score: run.score };
    }
    const s = k === 1 ? 0 : await silhouette(sim, sampleSize, chosen!.assignment, k);
    if (!best || s > best.silhouette + 1e-9) best = { k, centroids: chosen!.centroids, silhouette: s };
  }
  const all = new Int32Array(n);
  for (let i = 0; i < n; i++) all[i] = i;
  const centroids = best!.centroids;
  const run = await kmeans(e, all, centroids, best!.k, options.iterations ?? 10);
  const sizes = new Array<number>(best!.k).fill(0);
  for (let i = 0; i < n; i++) sizes[run.assignment[i]]++;
  return { k: best!.k, centroids, assignment: run.assignment, similarity: run.similarity, sizes, silhouette: best!.silhouette };
}

/**
 * The adjusted Rand index of two labellings of the same points (1: identical partitions, about 0:
 * chance agreement). For tests and the bench: how well topics recover known subjects.
 */
export function adjustedRandIndex(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  const table = new Map<string, number>();
  const rows = new Map<number, number>();
  const cols = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const key = `${a[i]}:${b[i]}`;
    table.set(key, (table.get(key) ?? 0) + 1);
    rows.set(a[i], (rows.get(a[i]) ?? 0) + 1);
    cols.set(b[i], (cols.get(b[i]) ?? 0) + 1);
  }
  const pairs = (x: number) => (x * (x - 1)) / 2;
  let index = 0;
  for (const v of table.values()) index += pairs(v);
  let sumRows = 0;
  for (const v of rows.values()) sumRows += pairs(v);
  let sumCols = 0;
  for (const v of cols.values()) sumCols += pairs(v);
  const expected = (sumRows * sumCols) / pairs(n);
  const max = (sumRows + sumCols) / 2;
  return max === expected ? 1 : (index - expected) / (max - expected);
}
