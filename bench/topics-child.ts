/**
 * Run by bench/topics.ts in a process of its own, so its peak RSS is the clustering's: makes
 * 100,000 unit embeddings of 256 dimensions around hidden subjects (a seeded mixture), clusters
 * them as a build does, and times putting a new trace in its topic. Prints one JSON line.
 */
import { performance } from 'node:perf_hooks';
import { adjustedRandIndex, clusterEmbeddings, nearestCentroid } from '../src/modules/topics/index.ts';

const n = Number(process.argv[2] ?? '100000');
const d = Number(process.argv[3] ?? '256');
const subjects = 12;

let a = 7;
const random = () => {
  a = (a + 0x6d2b79f5) >>> 0;
  let t = a;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const gauss = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());

const centres = Array.from({ length: subjects }, () => Float32Array.from({ length: d }, gauss));
const data = new Float32Array(n * d);
const truth = new Int32Array(n);
for (let i = 0; i < n; i++) {
  const s = Math.floor(random() * subjects);
  truth[i] = s;
  let norm = 0;
  for (let j = 0; j < d; j++) {
    // Each input: its subject's direction plus as much noise again (cosine to its centre about 0.7).
    const v = centres[s][j] + gauss();
    data[i * d + j] = v;
    norm += v * v;
  }
  const inv = 1 / Math.sqrt(norm);
  for (let j = 0; j < d; j++) data[i * d + j] *= inv;
}
const rssBefore = process.memoryUsage().rss;
const t0 = performance.now();
const clustering = await clusterEmbeddings({ n, d, data }, { seed: 1 });
const clusterMs = performance.now() - t0;

// Putting a new trace in its topic: the nearest of the topics' centroids (what each round does per trace).
const probes = 10_000;
const t1 = performance.now();
let sink = 0;
for (let i = 0; i < probes; i++) sink += nearestCentroid(clustering.centroids, clustering.k, data, (i % n) * d).index;
const assignUs = ((performance.now() - t1) * 1000) / probes;

console.log(
  JSON.stringify({
    n,
    d,
    k: clustering.k,
    subjects,
    ari: adjustedRandIndex(truth, clustering.assignment),
    clusterMs,
    assignUs,
    dataMiB: (n * d * 4) / 2 ** 20,
    rssBeforeMiB: rssBefore / 2 ** 20,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    sink,
  }),
);
