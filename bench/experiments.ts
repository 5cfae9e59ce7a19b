import { median, type BenchServer } from './lib.ts';

/**
 * Experiments logged by an SDK, through the API on a real server: a run growing to `rows` rows
 * in posts of `perPost` new rows (each with one evaluation, as the SDKs post about once a
 * second), one post at a time. A post's cost should follow the rows it carries, not the run's
 * size: the median of the last 5 posts against the first 5. Then the whole run read back
 * through GET /api/experiments/runs/{runId}/results (median of 5).
 */
export async function benchExperiments(server: BenchServer, opts: { rows: number; perPost: number }) {
  const key = server.creds.projectApiKey;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const runId = 'bench-run';
  const createdAt = Date.now();
  const post = async (from: number) => {
    const body = {
      experiment_slug: 'bench-experiment',
      run_id: runId,
      total: opts.rows,
      dataset: Array.from({ length: opts.perPost }, (_, i) => ({
        index: from + i,
        entry: { question: `question ${from + i} ${'lorem ipsum '.repeat(8)}`, expected: 'answer' },
        predicted: { output: `answer ${from + i} ${'dolor sit amet '.repeat(8)}` },
        duration: 200 + (i % 50),
        cost: 0.0001,
        trace_id: null,
      })),
      evaluations: Array.from({ length: opts.perPost }, (_, i) => ({ evaluator: 'exact', name: 'Exact', status: 'processed', index: from + i, score: i % 2, passed: i % 2 === 0 })),
      timestamps: { created_at: createdAt },
    };
    const t0 = performance.now();
    const res = await fetch(`${server.baseUrl}/api/evaluations/batch/log_results`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`log_results: ${res.status} ${await res.text()}`);
    return performance.now() - t0;
  };
  // Warm-up on another run (JIT, connections).
  for (let i = 0; i < 3; i++) {
    await fetch(`${server.baseUrl}/api/evaluations/batch/log_results`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ experiment_slug: 'bench-warm', run_id: `warm-${i}`, dataset: [{ index: 0, entry: { q: 1 } }] }),
    });
  }
  const times: number[] = [];
  for (let from = 0; from < opts.rows; from += opts.perPost) times.push(await post(from));
  const firstMs = median(times.slice(0, 5));
  const lastMs = median(times.slice(-5));
  const reads: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const res = await fetch(`${server.baseUrl}/api/experiments/runs/${runId}/results?experimentSlug=bench-experiment`, { headers });
    const text = await res.text();
    reads.push(performance.now() - t0);
    bytes = text.length;
    const parsed = JSON.parse(text) as { dataset: unknown[]; progress: number };
    if (parsed.dataset.length !== opts.rows || parsed.progress !== opts.rows) throw new Error(`read ${parsed.dataset.length} rows, progress ${parsed.progress}`);
  }
  return { rows: opts.rows, perPost: opts.perPost, posts: times.length, firstPostMs: firstMs, lastPostMs: lastMs, ratio: lastMs / firstMs, readMs: median(reads), readBytes: bytes };
}
