import { median, percentile, pool, type BenchServer } from './lib.ts';
import { hasChromium } from '../test/support/browser.ts';
import { signedInPage } from './web.ts';

/**
 * Agent simulations as `@langwatch/scenario` reports them (POST /api/scenario-events, one event
 * a post): a batch of `runs` runs of `turns` turns, `concurrency` runs at once, each posting its
 * start, a snapshot of the whole conversation after every turn (the package sends the
 * conversation so far each time) and its end with the verdict. For each run, the time from its
 * last event (the post's start) to the run read back finished from GET
 * /api/simulations/runs/{id}. Then a batch of `pageRuns` runs, and its page in Chromium: from
 * navigation start to every run's row drawn (`reads` times, median; the first load warms up).
 */
export async function benchSimulations(server: BenchServer, opts: { runs: number; turns: number; concurrency: number; pageRuns: number; reads: number }) {
  const headers = { authorization: `Bearer ${server.creds.projectApiKey}`, 'content-type': 'application/json' };
  const post = async (body: unknown) => {
    const res = await fetch(`${server.baseUrl}/api/scenario-events`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`scenario-events: ${res.status} ${await res.text()}`);
  };
  const message = (i: number) => ({ id: `m${i}`, role: i % 2 ? 'assistant' : 'user', content: `${i % 2 ? 'Agent' : 'User'} says turn ${Math.floor(i / 2) + 1}: ${'lorem ipsum '.repeat(20)}` });
  /** One run as the package reports it; `turns` snapshots when reporting a conversation, one for the page's batch. */
  const report = async (batchRunId: string, n: number, turns: number, snapshots: 'each turn' | 'last') => {
    const ids = { batchRunId, scenarioSetId: 'bench-set', scenarioId: `scenario-${n}`, scenarioRunId: `${batchRunId}-run-${n}` };
    const t0 = Date.now();
    await post({ type: 'SCENARIO_RUN_STARTED', timestamp: t0, ...ids, metadata: { name: `Scenario ${n}`, description: 'A customer asks the support agent for a refund' } });
    for (let turn = 1; turn <= turns; turn++) {
      if (snapshots === 'last' && turn < turns) continue;
      await post({ type: 'SCENARIO_MESSAGE_SNAPSHOT', timestamp: t0 + turn, ...ids, messages: Array.from({ length: 2 * turn }, (_, i) => message(i)) });
    }
    const passed = n % 4 !== 0;
    const last = performance.now();
    await post({
      type: 'SCENARIO_RUN_FINISHED',
      timestamp: t0 + turns + 1,
      ...ids,
      status: passed ? 'SUCCESS' : 'FAILED',
      results: { verdict: passed ? 'success' : 'failure', reasoning: 'The judge read the conversation.', metCriteria: ['The agent is polite'], unmetCriteria: passed ? [] : ['The agent refunds'] },
    });
    return { scenarioRunId: ids.scenarioRunId, last };
  };

  const visibleMs: number[] = [];
  await pool(
    Array.from({ length: opts.runs }, (_, n) => async () => {
      const { scenarioRunId, last } = await report('bench-batch', n, opts.turns, 'each turn');
      for (;;) {
        const res = await fetch(`${server.baseUrl}/api/simulations/runs/${scenarioRunId}`, { headers });
        const run = (await res.json()) as { finishedAt: number | null; messageCount: number };
        if (res.status === 200 && run.finishedAt !== null && run.messageCount === 2 * opts.turns) break;
        if (performance.now() - last > 60_000) throw new Error(`run ${scenarioRunId} not visible after 60 s`);
      }
      visibleMs.push(performance.now() - last);
    }),
    opts.concurrency,
  );
  const batch = await (await fetch(`${server.baseUrl}/api/simulations/batches/bench-batch/runs`, { headers })).json() as { runs: { results: { verdict: string } | null }[] };
  if (batch.runs.length !== opts.runs) throw new Error(`the batch lists ${batch.runs.length} runs, not ${opts.runs}`);

  await pool(
    Array.from({ length: opts.pageRuns }, (_, n) => async () => void (await report('bench-page-batch', n, 2, 'last'))),
    opts.concurrency,
  );
  const pageMs = hasChromium ? await batchPage(server, opts.pageRuns, opts.reads) : null;
  return {
    runs: opts.runs,
    turns: opts.turns,
    concurrency: opts.concurrency,
    visibleMedianMs: median(visibleMs),
    visibleMaxMs: Math.max(...visibleMs),
    visibleP95Ms: percentile(visibleMs, 95),
    passed: batch.runs.filter((r) => r.results?.verdict === 'success').length,
    pageRuns: opts.pageRuns,
    pageMs,
  };
}

/** Navigation start to the batch page's last run drawn, in Chromium (the first load warms up). */
async function batchPage(server: BenchServer, runs: number, reads: number): Promise<number> {
  const { browser, page } = await signedInPage(server);
  try {
    const times: number[] = [];
    for (let i = 0; i < reads + 1; i++) {
      await page.goto(`${server.baseUrl}/p/${server.creds.project.id}/simulations?set=bench-set&batch=bench-page-batch`, { waitUntil: 'commit' });
      await page.locator(`[data-run="Scenario ${runs - 1}"]`).waitFor({ timeout: 30_000 });
      const at = await page.evaluate(() => performance.now());
      const drawn = await page.locator('[data-run]').count();
      if (drawn !== runs) throw new Error(`the batch page drew ${drawn} runs, not ${runs}`);
      if (i > 0) times.push(at);
      await page.waitForLoadState('networkidle');
    }
    return median(times);
  } finally {
    await browser.close();
  }
}
