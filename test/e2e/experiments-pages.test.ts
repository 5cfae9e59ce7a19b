import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, seriousViolations, saveScreenshot, openSignedIn, openInApp } from '../support/browser.ts';
import { sections } from '../support/sections.ts';
import { logResults } from '../../src/modules/experiments/log-results.ts';
import { logResultsBody } from '../../src/modules/experiments/schemas.ts';
import { PHONE, unreachableActions, widerThanScreen } from '../support/phone-width.ts';

/**
 * The experiments pages in Debian's Chromium against the real server, on runs an SDK would
 * log (POST /api/evaluations/batch/log_results): the list with each experiment's last run and
 * trend, an experiment's runs, a run's table (sort, filter, aggregates with intervals, live
 * progress) and two runs compared (verdicts, diffed outputs, regressions, baseline).
 */
describe.runIf(hasChromium)('experiment pages in a real browser', () => {
  // Four axe passes a page, with two cores shared between several test runs.
  vi.setConfig({ testTimeout: 240_000 });
  const kind = appDatabaseKinds[0];
  let web: TestApp;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  let key = '';
  /** 101 days ago, to the minute: the history of 100 nightly runs ends yesterday. */
  const T0 = Math.floor((Date.now() - 101 * 86_400_000) / 60_000) * 60_000;

  beforeAll(async () => {
    web = await startApp(kind);
    browser = await workerBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    projectId = web.creds.project.id;
    key = web.creds.projectApiKey;
  });
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
  });

  const url = (p: string) => web.baseUrl + p;
  const project = (p: string) => url(`/p/${projectId}${p}`);
  async function accessible() {
    expect(await seriousViolations(page)).toEqual([]);
  }
  async function fitsThePhone(what: string) {
    expect(await widerThanScreen(page), `${what}: wider than the screen`).toEqual([]);
    expect(await unreachableActions(page), `${what}: actions out of reach`).toEqual([]);
  }
  /** The page from its top, its tables scrolled back to their first column. */
  async function shot(name: string) {
    await page.evaluate(`document.querySelectorAll('.run-page, .page, .run-grid, .panel, .cmp-list').forEach((el) => el.scrollTo(0, 0))`);
    await saveScreenshot(page, name);
  }
  /** Every page: axe at 1280, then the phone-width rule and axe again at 390. */
  async function checkBothWidths(what: string, name?: string) {
    await accessible();
    if (name) await shot(name);
    await page.setViewportSize(PHONE);
    await page.waitForTimeout(150);
    await fitsThePhone(what);
    await accessible();
    if (name) await shot(`${name}-phone`);
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  async function log(body: Record<string, unknown>) {
    const res = await web.request('POST', '/api/evaluations/batch/log_results', { authToken: key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  const QUESTIONS = ['What is 2+2?', 'Capital of France?', 'Largest planet?', 'Author of Hamlet?', 'Boiling point of water in C?', 'Speed of light?', 'Chemical symbol of gold?', 'Tallest mountain?'];
  const ANSWERS = ['4', 'Paris', 'Jupiter', 'Shakespeare', '100', '299,792 km/s', 'Au', 'Everest'];
  /** A run of `n` rows; `quality` is the share of rows answered right (the same rows for every run, so runs pair). */
  function runBody(runId: string, n: number, quality: number, opts: { created?: number; finished?: boolean; from?: number; slug?: string } = {}) {
    const from = opts.from ?? 0;
    const dataset = [];
    const evaluations = [];
    for (let i = from; i < from + n; i++) {
      const right = (i * 7919) % 100 < quality * 100;
      const expected = ANSWERS[i % ANSWERS.length];
      const output = right ? expected : `I think it is ${expected.toLowerCase()}ish, not sure`;
      const error = i === 5 && quality < 0.6 ? 'upstream timeout after 30 s' : null;
      dataset.push({
        index: i,
        target_id: 'gpt-4o-mini',
        entry: { question: QUESTIONS[i % QUESTIONS.length] + (i >= QUESTIONS.length ? ` (#${i})` : ''), expected_output: expected },
        predicted: { output: error ? null : output },
        cost: 0.0002 + (i % 5) * 0.0001,
        duration: 300 + ((i * 37) % 900),
        error,
        trace_id: i === 0 ? 'trace-row-0' : null,
      });
      evaluations.push({ index: i, target_id: 'gpt-4o-mini', evaluator: 'exact_match', name: 'Exact match', status: 'processed', score: right ? 1 : 0, passed: right });
      evaluations.push({
        index: i,
        target_id: 'gpt-4o-mini',
        evaluator: 'relevance',
        name: 'Relevance',
        status: i === 7 ? 'error' : 'processed',
        score: i === 7 ? null : right ? 0.9 : 0.4 + ((i * 13) % 30) / 100,
        label: right ? 'relevant' : 'partly',
        details: i === 7 ? 'judge refused' : null,
      });
    }
    return {
      experiment_slug: opts.slug ?? 'support-bot-accuracy',
      name: opts.slug ? undefined : 'Support bot accuracy',
      run_id: runId,
      total: from + n,
      targets: [{ id: 'gpt-4o-mini', name: 'gpt-4o-mini', type: 'prompt', model: 'openai/gpt-4o-mini' }],
      dataset,
      evaluations,
      timestamps: { created_at: opts.created ?? T0, ...(opts.finished === false ? {} : { finished_at: (opts.created ?? T0) + 60_000 }) },
    };
  }

  it('logs runs over HTTP as an SDK does, and signs in', async () => {
    await log(runBody('baseline-run', 40, 0.5, { created: T0 }));
    await log(runBody('prompt-v2', 40, 0.85, { created: T0 + 3600_000 }));
    await log(runBody('nightly-live', 10, 0.8, { created: Date.now(), finished: false }));
    await log({ ...runBody('nightly-live', 10, 0.8, { created: Date.now(), finished: false }), total: 30 });
    // A long history: 100 runs of a second experiment, its score drifting.
    // The experiment first, then its 100 runs side by side (each run's own time says its place).
    const night = (r: number) =>
      log({
        experiment_slug: 'nightly-regression',
        run_id: `night-${String(r).padStart(3, '0')}`,
        dataset: [{ index: 0, entry: { q: 'x' }, predicted: { output: 'y' } }],
        evaluations: [{ index: 0, evaluator: 'accuracy', status: 'processed', score: 0.6 + 0.3 * Math.sin(r / 9) }],
        timestamps: { created_at: T0 + r * 86_400_000, finished_at: T0 + r * 86_400_000 + 1000 },
      });
    await night(0);
    await Promise.all(Array.from({ length: 99 }, (_, r) => night(r + 1)));
    await openSignedIn(page, web.baseUrl, web.creds.user, `/p/${projectId}/traces`);
  });

  it('lists the experiments with their last run and the trend of their main score, 100 runs drawn one by one', async () => {
    await (await sections(page)).getByRole('link', { name: 'Experiments' }).click();
    await page.waitForURL('**/experiments');
    const table = page.getByRole('table', { name: 'Experiments' });
    await table.getByRole('link', { name: 'Support bot accuracy' }).waitFor();
    const nightly = table.getByRole('row').filter({ hasText: 'nightly-regression' });
    const trend = nightly.getByRole('img');
    await trend.waitFor();
    expect(await trend.getAttribute('aria-label')).toMatch(/^accuracy score over 100 runs: last 0\.\d+, lowest 0\.\d+, highest 0\.\d+$/);
    await nightly.getByRole('link', { name: 'night-099' }).waitFor();
    // Every run is a point of the line: 100 points, none averaged away.
    const d = await trend.locator('path').first().getAttribute('d');
    expect(d!.match(/[ML]/g)!.length).toBe(100);
    const support = table.getByRole('row').filter({ hasText: 'Support bot accuracy' });
    await support.getByRole('link', { name: 'nightly-live' }).waitFor();
    await support.getByText('running').waitFor();
    await checkBothWidths('experiments list', 'experiments');
  });

  it('shows an experiment with its runs, and a run with its rows, aggregates and intervals', async () => {
    await page.getByRole('link', { name: 'Support bot accuracy' }).click();
    await page.waitForURL('**/experiments/support-bot-accuracy');
    const runs = page.getByRole('table', { name: 'Runs' });
    await runs.getByRole('link', { name: 'prompt-v2' }).waitFor();
    await checkBothWidths('experiment runs', 'experiment');
    await runs.getByRole('link', { name: 'prompt-v2' }).click();
    // The URL the SDKs print for a run.
    await page.waitForURL(`**/p/${projectId}/experiments/support-bot-accuracy?runId=prompt-v2`);
    const aggregates = page.getByTestId('run-aggregates');
    await aggregates.waitFor();
    const exact = aggregates.getByRole('row').filter({ hasText: 'Exact match' });
    expect(await exact.textContent()).toMatch(/\d+\.\d+%\s*\(\d+\.\d+% – \d+(\.\d+)?%\)/);
    await page.getByTestId('row-count').getByText('40 rows').waitFor();
    const grid = page.getByTestId('run-grid');
    await grid.getByRole('row').nth(1).waitFor();
    await grid.getByRole('link', { name: 'Trace of row 1' }).waitFor();
    expect(await grid.getByRole('columnheader').allTextContents()).toEqual(
      expect.arrayContaining(['#', 'question', 'Expected (expected_output)', 'Output', 'Exact match', 'Relevance', 'Cost', 'Latency', 'Error', 'Trace']),
    );

    // Filter: the failed rows of exact match.
    await page.getByLabel('Filter column').selectOption({ label: 'Exact match' });
    await page.getByLabel('Matching').fill('fail');
    await page.waitForURL(/f=fail/);
    await page.getByTestId('row-count').getByText(/^\d+ of 40 rows$/).waitFor();
    const failed = await page.getByTestId('row-count').textContent();
    expect(failed).toMatch(/^\d+ of 40 rows$/);
    expect(Number(failed!.split(' ')[0])).toBeGreaterThan(0);
    expect(Number(failed!.split(' ')[0])).toBeLessThan(40);
    await grid.getByRole('cell').filter({ hasText: /ish, not sure/ }).first().waitFor();
    // Sort by latency, slowest first.
    await page.getByRole('button', { name: 'Clear filter and sort' }).click();
    await grid.getByRole('columnheader', { name: 'Latency' }).getByRole('button').click();
    await page.waitForURL(/sort=duration/);
    const expected = Array.from({ length: 40 }, (_, i) => ({ i, d: 300 + ((i * 37) % 900) }))
      .sort((a, b) => b.d - a.d || a.i - b.i)
      .slice(0, 5)
      .map((x) => String(x.i));
    // The server's sorted page replaces the unsorted one when it arrives.
    await expect
      .poll(() => grid.locator('[role=row][data-row-index]').evaluateAll((rows) => rows.slice(0, 5).map((r) => r.getAttribute('data-row-index'))))
      .toEqual(expected);
    await page.getByRole('button', { name: 'Clear filter and sort' }).click();
    await page.getByTestId('row-count').getByText('40 rows').waitFor();
    await checkBothWidths('run page', 'experiment-run');
  });

  it('follows a running run live', async () => {
    await openInApp(page, project('/experiments/support-bot-accuracy?runId=nightly-live'));
    await page.getByText('10 of 30 rows').first().waitFor();
    await log(runBody('nightly-live', 10, 0.8, { created: Date.now(), finished: false, from: 10 }));
    await page.getByText('20 of 30 rows').first().waitFor();
    await log(runBody('nightly-live', 10, 0.8, { created: Date.now(), finished: true, from: 20 }));
    await page.getByTestId('row-count').getByText('30 rows').waitFor();
    await page.getByText('completed').first().waitFor();
  });

  it('compares two runs: verdicts with intervals, outputs diffed, regressions, a new baseline', async () => {
    await openInApp(page, project('/experiments/support-bot-accuracy'));
    await page.getByLabel('Compare run baseline-run').check();
    await page.getByLabel('Compare run prompt-v2').check();
    await page.getByRole('link', { name: 'Compare 2 runs' }).click();
    await page.waitForURL(/compare\?runs=baseline-run%2Cprompt-v2|compare\?runs=baseline-run,prompt-v2/);
    const verdicts = page.getByTestId('verdicts');
    await verdicts.waitFor();
    const exact = verdicts.getByRole('row').filter({ hasText: 'Exact match' });
    expect(await exact.textContent()).toMatch(/prompt-v2 is better than baseline-run on Exact match \(pass rate\): \+\d+\.\d pts \(95% CI \+\d+\.\d pts to \+\d+\.\d pts, 40 rows\)/);
    const rows = page.getByTestId('compare-rows');
    await rows.getByRole('listitem').first().waitFor();
    // prompt-v2's right answers differ from the baseline's hedged ones: the changed words are marked.
    await rows.locator('mark').first().waitFor();
    await page.getByTestId('compare-count').getByText('40 rows').waitFor();
    await checkBothWidths('comparison', 'experiment-compare');

    // Every row the baseline got right, prompt-v2 got right too: no regression, some improvements.
    await page.getByText('Regressions', { exact: true }).click();
    await page.waitForURL(/view=regressions/);
    await page.getByText('No regressions').waitFor();
    await page.getByText('Failed, now pass', { exact: true }).click();
    await page.getByTestId('regression-rows').getByRole('listitem').first().waitFor();
    expect(await page.getByTestId('compare-count').textContent()).toMatch(/^0 regressed, [1-9]\d* improved/);
    await accessible();

    // The experiment's baseline becomes prompt-v2: stored, and every comparison is made with it.
    await page.getByRole('button', { name: 'Make prompt-v2 the baseline' }).click();
    await page.getByText('baseline (the experiment’s)').waitFor();
    expect(await verdicts.getByRole('row').filter({ hasText: 'Exact match' }).textContent()).toMatch(/baseline-run is worse than prompt-v2/);
    const stored = await web.request('GET', '/api/experiments/support-bot-accuracy/baseline', { authToken: key });
    expect(stored.body).toEqual({ experimentSlug: 'support-bot-accuracy', baselineRunId: 'prompt-v2' });

    // The list now says how the last run does against it.
    await (await sections(page)).getByRole('link', { name: 'Experiments' }).click();
    const support = page.getByRole('table', { name: 'Experiments' }).getByRole('row').filter({ hasText: 'Support bot accuracy' });
    await support.getByRole('link', { name: /vs prompt-v2/ }).waitFor();
    await shot('experiments');
  });

  it('sets up a platform-run experiment in the app: dataset, an HTTP agent with a header, an evaluator mapped and previewed; Save and run', async () => {
    // The user's agent: answers the question upper-cased when its key comes along.
    let seenKey = '';
    const agent = http.createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        seenKey = String(req.headers['x-agent-key'] ?? '');
        const row = JSON.parse(text) as { question: string };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: row.question.toUpperCase() }));
      });
    });
    await new Promise<void>((r) => agent.listen(0, '127.0.0.1', r));
    const agentUrl = `http://127.0.0.1:${(agent.address() as AddressInfo).port}/answer`;
    try {
      const ds = await web.request('POST', '/api/dataset', { authToken: key, body: { name: 'Shouting', columnTypes: [{ name: 'question', type: 'string' }, { name: 'expected', type: 'string' }] } });
      expect(ds.status, ds.text).toBe(201);
      const added = await web.request('POST', '/api/dataset/shouting/records', { authToken: key, body: { entries: [{ question: 'hello there', expected: 'HELLO THERE' }, { question: 'quiet', expected: 'quiet' }] } });
      expect(added.status, added.text).toBe(201);

      await openInApp(page, project('/experiments'));
      await page.getByLabel('New experiment').fill('Agent shouting');
      await page.getByRole('button', { name: 'Set it up' }).click();
      await page.waitForURL('**/experiments/agent-shouting/setup?name=*');
      await page.getByRole('heading', { name: 'New experiment agent-shouting' }).waitFor();
      await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'Shouting (2 rows)' });
      await page.getByTestId('first-row').getByText(/question = hello there/).waitFor();
      await page.getByText('HTTP agent', { exact: true }).click();
      await page.getByLabel('URL').fill(agentUrl);
      await page.getByLabel('Output field').fill('answer');
      await page.getByLabel('Headers').fill('x-agent-key: agent-secret-key-0042');
      await page.getByRole('button', { name: 'Add an evaluator' }).click();
      await page.getByLabel('Evaluator', { exact: true }).selectOption('checks/exact_match');
      await page.getByLabel('Source of expected_output').selectOption({ label: 'Column expected' });
      expect(await page.getByTestId('preview-0-expected_output').textContent()).toBe('HELLO THERE');
      expect(await page.getByTestId('preview-0-output').textContent()).toBe("the target's output");
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').getByText('Saved.').waitFor();
      await checkBothWidths('experiment setup', 'experiment-setup');
      await page.getByRole('table', { name: 'Data of evaluator 1' }).scrollIntoViewIfNeeded();
      await saveScreenshot(page, 'experiment-setup-evaluators');

      // Saved as the API reads it: the header masked, the mapping as chosen.
      const saved = await web.request('GET', '/api/experiments/agent-shouting/definition', { authToken: key });
      expect(saved.body.name).toBe('Agent shouting');
      expect(saved.body.targets[0]).toMatchObject({ type: 'http', url: agentUrl, output_field: 'answer', headers: { 'x-agent-key': '****0042' } });
      expect(saved.body.evaluators[0]).toMatchObject({ evaluator: 'checks/exact_match', mapping: { expected_output: 'dataset.expected', output: 'target.output' } });

      await page.getByRole('button', { name: 'Save and run' }).click();
      await page.waitForURL(/experiments\/agent-shouting\?runId=run_/);
      await page.getByTestId('row-count').getByText('2 rows').waitFor({ timeout: 30_000 });
      await page.getByTestId('run-grid').getByRole('cell', { name: 'HELLO THERE' }).first().waitFor();
      expect(seenKey).toBe('agent-secret-key-0042');

      // Read back in the form: the header masked, and saved again unchanged it keeps its value.
      await openInApp(page, project('/experiments/agent-shouting/setup'));
      await page.getByRole('heading', { name: /Set up/ }).waitFor();
      expect(await page.getByLabel('Headers').inputValue()).toBe('x-agent-key: ****0042');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').getByText('Saved.').waitFor();
      seenKey = '';
      const again = await web.request('POST', '/api/experiments/agent-shouting/run', { authToken: key, body: {} });
      expect(again.status).toBe(200);
      await expect.poll(() => seenKey, { timeout: 20_000 }).toBe('agent-secret-key-0042');
    } finally {
      agent.closeAllConnections();
      await new Promise((r) => agent.close(r));
    }
  });

  it('compares two runs of 10,000 rows: the first rows show at once, and only those in view are drawn', async () => {
    const N = 10_000;
    // Each run in one call of the function the log_results route runs (logging over HTTP is the
    // first test's): eight requests of 2,500 rows cost this process 5.2 s of CPU, this 2.7 s.
    const scope = { organizationId: web.creds.organization.id, projectId };
    for (const [runId, quality] of [
      ['big-a', 0.6],
      ['big-b', 0.7],
    ] as const) {
      await logResults({ db: web.db, clock: web.clock }, scope, logResultsBody.parse({ ...runBody(runId, N, quality, { slug: 'big-run' }), total: N }));
    }
    const started = Date.now();
    await openInApp(page, project('/experiments/big-run/compare?runs=big-a,big-b'));
    await page.getByTestId('compare-rows').getByRole('listitem').first().waitFor({ timeout: 30_000 });
    const elapsed = Date.now() - started;
    console.log(`two 10,000-row runs compared: first rows after ${elapsed} ms (${kind})`);
    expect(await page.getByTestId('compare-rows').getByRole('listitem').count()).toBeLessThan(60);
    await page.getByTestId('compare-count').getByText(`${N} rows`).waitFor();

    // The run page reads the rows route a page at a time: the first lines, then those scrolled to.
    const opened = Date.now();
    await openInApp(page, project('/experiments/big-run?runId=big-a'));
    const grid = page.getByTestId('run-grid');
    await grid.locator('[role=row][data-row-index="0"]').waitFor({ timeout: 30_000 });
    console.log(`a 10,000-row run: first rows after ${Date.now() - opened} ms (${kind})`);
    await page.getByTestId('row-count').getByText(`${N} rows`).waitFor({ timeout: 30_000 });
    expect(await grid.locator('[role=row][data-row-index]').count()).toBeLessThan(80);
    await grid.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await grid.locator(`[role=row][data-row-index="${N - 1}"]`).waitFor();
    // Filtered and sorted by the server: the failed rows of exact match, slowest first.
    await page.getByLabel('Filter column').selectOption({ label: 'Exact match' });
    await page.getByLabel('Matching').fill('fail');
    const filtered = Date.now();
    await page.getByTestId('row-count').getByText(new RegExp(`^\\d+ of ${N} rows$`)).waitFor({ timeout: 30_000 });
    console.log(`a 10,000-row run filtered by the server: ${Date.now() - filtered} ms (${kind})`);
    await grid.getByRole('columnheader', { name: 'Latency' }).getByRole('button').click();
    await page.waitForURL(/sort=duration/);
    const slowest = Array.from({ length: N }, (_, i) => ({ i, d: 300 + ((i * 37) % 900), right: (i * 7919) % 100 < 60 }))
      .filter((x) => !x.right)
      .sort((a, b) => b.d - a.d || a.i - b.i)[0];
    await grid.evaluate((el) => el.scrollTo(0, 0));
    await grid.locator('[role=row][data-row-index]').first().and(grid.locator(`[data-row-index="${slowest.i}"]`)).waitFor();
  });
});
