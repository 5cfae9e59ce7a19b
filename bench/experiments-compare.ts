import { median, type BenchServer } from './lib.ts';
import { hasChromium } from '../test/support/browser.ts';
import { signedInPage } from './web.ts';

/**
 * Comparing two runs of `rows` rows, each row scored by `evaluators` evaluators (score and
 * pass/fail), logged through log_results in posts of 250 rows. Then, through the API:
 * GET /api/experiments/{slug}/compare (per-run aggregates with intervals, the paired bootstrap per
 * evaluator) right after both runs were written (an SDK's re-post of one row each: nothing kept of
 * them is used), then again as a page reads it a second time (the runs' values kept), and GET
 * .../runs/{runId}/summary (per target and evaluator), `reads` times each, median reported. The target is <= 300 ms for the comparison. The pages' first reads too (their
 * share of "the page shows its first rows in at most 1 s"): the comparison page's first 100 rows
 * side by side (GET .../compare/rows), and the run page's first 100 lines as it opens, then
 * filtered (one evaluator failed) and sorted (slowest first) by the server (GET .../rows).
 * Then the pages themselves in Chromium (when installed): from navigation start to the first
 * rows drawn, for the comparison page and the run page (`reads` times each, median).
 */
export async function benchExperimentsCompare(server: BenchServer, opts: { rows: number; evaluators: number; reads: number }) {
  const key = server.creds.projectApiKey;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const slug = 'bench-compare';
  const evaluators = Array.from({ length: opts.evaluators }, (_, e) => `eval-${e}`);
  const log = async (runId: string, shift: number) => {
    for (let from = 0; from < opts.rows; from += 250) {
      const n = Math.min(250, opts.rows - from);
      const body = {
        experiment_slug: slug,
        run_id: runId,
        targets: [{ id: 'model', name: 'Model' }],
        dataset: Array.from({ length: n }, (_, i) => ({
          index: from + i,
          target_id: 'model',
          entry: { question: `question ${from + i}` },
          predicted: { output: `answer ${from + i}` },
          duration: 200 + ((from + i) % 97),
          cost: 0.0001 * (1 + ((from + i) % 7)),
        })),
        evaluations: Array.from({ length: n }, (_, i) =>
          evaluators.map((evaluator, e) => {
            const x = ((from + i) * 2654435761 + e * 97) % 1000;
            return { evaluator, index: from + i, target_id: 'model', status: 'processed', score: x / 1000, passed: x < 700 + shift, duration: 50 + (x % 13), cost: 0.00001 };
          }),
        ).flat(),
        timestamps: { created_at: Date.now(), finished_at: Date.now() },
      };
      const res = await fetch(`${server.baseUrl}/api/evaluations/batch/log_results`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (res.status !== 200) throw new Error(`log_results: ${res.status} ${await res.text()}`);
    }
  };
  await log('baseline', 0);
  await log('candidate', 30);
  /** An SDK's re-post of one row, unchanged: the run is written, so nothing of it a process kept is used. */
  const repost = async (runId: string) => {
    const body = {
      experiment_slug: slug,
      run_id: runId,
      dataset: [{ index: 0, target_id: 'model', entry: { question: 'question 0' }, predicted: { output: 'answer 0' }, duration: 200, cost: 0.0001 }],
      timestamps: { created_at: Date.now() },
    };
    const res = await fetch(`${server.baseUrl}/api/evaluations/batch/log_results`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`log_results: ${res.status} ${await res.text()}`);
  };
  const time = async (url: string, before?: () => Promise<void>) => {
    const times: number[] = [];
    let body: unknown;
    for (let i = 0; i < opts.reads + 1; i++) {
      await before?.();
      const t0 = performance.now();
      const res = await fetch(`${server.baseUrl}${url}`, { headers });
      body = await res.json();
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
      if (i > 0) times.push(performance.now() - t0); // the first read warms up
    }
    return { ms: median(times), body };
  };
  const compareUrl = `/api/experiments/${slug}/compare?runs=baseline,candidate`;
  const compareFresh = await time(compareUrl, async () => {
    await repost('baseline');
    await repost('candidate');
  });
  const compare = await time(compareUrl);
  const summary = await time(`/api/experiments/${slug}/runs/candidate/summary`);
  const compareRows = await time(`/api/experiments/${slug}/compare/rows?runs=baseline,candidate&page=1&pageSize=100`);
  const runRows = await time(`/api/experiments/${slug}/runs/candidate/rows?page=1&pageSize=100`);
  const filteredRows = await time(`/api/experiments/${slug}/runs/candidate/rows?page=1&pageSize=100&where=${encodeURIComponent('passed:eval-0=false')}&sortBy=duration&sortDirection=desc`);
  const lastRows = await time(`/api/experiments/${slug}/runs/candidate/rows?page=${Math.ceil(opts.rows / 100)}&pageSize=100`);
  const verdicts = (compare.body as { comparisons: { evaluators: { verdict: string }[] }[] }).comparisons[0].evaluators.map((e) => e.verdict);
  const pages = hasChromium ? await pagesInBrowser(server, slug, opts.reads) : null;
  return {
    rows: opts.rows,
    evaluators: opts.evaluators,
    reads: opts.reads,
    compareFreshMs: compareFresh.ms,
    compareMs: compare.ms,
    summaryMs: summary.ms,
    compareRowsMs: compareRows.ms,
    runRowsMs: runRows.ms,
    filteredRowsMs: filteredRows.ms,
    lastRowsMs: lastRows.ms,
    comparePageMs: pages?.compare ?? null,
    runPageMs: pages?.run ?? null,
    verdicts,
  };
}

/** Navigation start to the first rows drawn, in Chromium: the comparison page, then the run page (the first load warms up). */
async function pagesInBrowser(server: BenchServer, slug: string, reads: number): Promise<{ compare: number; run: number }> {
  const project = `${server.baseUrl}/p/${server.creds.project.id}`;
  const { browser, page } = await signedInPage(server);
  try {
    const firstRows = async (path: string, ready: string) => {
      const times: number[] = [];
      for (let i = 0; i < reads + 1; i++) {
        await page.goto(`${project}${path}`, { waitUntil: 'commit' });
        await page.locator(ready).first().waitFor({ timeout: 30_000 });
        if (i > 0) times.push(await page.evaluate(() => performance.now()));
        // The page's other reads (the comparison's statistics) end before the next load: one
        // still running on PGlite's single connection would delay the next page's first reads.
        await page.waitForLoadState('networkidle');
      }
      return median(times);
    };
    return {
      compare: await firstRows(`/experiments/${slug}/compare?runs=baseline,candidate`, '[data-testid=compare-rows] [role=listitem]'),
      run: await firstRows(`/experiments/${slug}?runId=candidate`, '[data-testid=run-grid] [role=row][data-row-index="0"]'),
    };
  } finally {
    await browser.close();
  }
}
