/**
 * Topics: clustering 100,000 traces whose embeddings are already stored (target <= 60 s and
 * <= 600 MiB), and putting a new trace in its topic (target <= 5 ms). The clustering runs in a
 * child process of its own (bench/topics-child.ts), so the peak RSS is the clustering's.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export interface TopicsBench {
  n: number;
  d: number;
  k: number;
  subjects: number;
  ari: number;
  clusterMs: number;
  assignUs: number;
  dataMiB: number;
  rssBeforeMiB: number;
  peakRssMiB: number;
}

export function benchTopics(n = 100_000, d = 256): TopicsBench {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'topics-child.ts'), String(n), String(d)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (run.status !== 0) throw new Error(`topics bench failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as TopicsBench;
}
