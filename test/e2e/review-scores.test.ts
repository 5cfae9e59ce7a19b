import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, openSignedIn, openInApp } from '../support/browser.ts';
import { checkBothWidths } from '../support/both-widths.ts';
import { agentTrace } from '../support/sample-traces.ts';

/**
 * Review scores where traces are read, in Debian's Chromium: score columns picked in the
 * traces list, sorted by a score at its header, a score filter and its chip; a chart per score
 * in analytics; the Review column of an experiment run. Desktop 1280 and phone 390.
 */
describe.runIf(hasChromium).each(appDatabaseKinds)('review scores in lists, charts and runs, in a real browser (%s)', (kind) => {
  let web: TestApp;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  const configs: Record<string, string> = {};
  const shots = kind === appDatabaseKinds[0];
  const ids = ['sc-trace-1', 'sc-trace-2', 'sc-trace-3'];

  beforeAll(async () => {
    web = await startApp(kind);
    browser = await workerBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    // The analytics page asks for its 19 charts at once and the app answers them one after another
    // from one database connection: on a loaded machine the last (the score charts) came after
    // 10 s (09:07-09:20 UTC, load 15-23), within 3.2 s at 09:23 (load 16-19). A chart that never
    // draws still fails, after 20 s, as in dashboards.test.ts.
    page.setDefaultTimeout(20_000);
    projectId = web.creds.project.id;
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await web.request(method, p, { authToken: web.creds.projectApiKey, body });
      expect(res.status, res.text).toBeLessThan(300);
      return res.body;
    };
    const now = Date.now();
    for (const [i, id] of ids.entries()) await call('POST', '/api/collector', agentTrace(id, now - i * 60_000, { question: `Question number ${i + 1}` }));
    configs.quality = (await call('POST', '/api/score-configs', { name: 'Quality', kind: 'numeric', min: 1, max: 5 })).data.id;
    configs.tone = (await call('POST', '/api/score-configs', { name: 'Tone', kind: 'categorical', categories: ['friendly', 'neutral', 'rude'] })).data.id;
    const annotate = (traceId: string, quality: number, tone: string) =>
      call('POST', `/api/annotations/trace/${traceId}`, { comment: 'reviewed', isThumbsUp: true, scores: [{ configId: configs.quality, value: quality }, { configId: configs.tone, value: tone }] });
    // sc-trace-1 (newest) scored lowest: sorting by Quality moves it.
    await annotate(ids[0], 2, 'rude');
    await annotate(ids[1], 5, 'friendly');
    await call('POST', '/api/evaluations/batch/log_results', {
      experiment_slug: 'reviewed-run',
      run_id: 'run-1',
      timestamps: { created_at: now - 60_000, finished_at: now },
      dataset: ids.map((id, index) => ({ index, entry: { question: `Question number ${index + 1}` }, predicted: { output: 'answer' }, trace_id: id })),
    });
  }, 120_000);
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
  });

  const url = (p: string) => web.baseUrl + p;
  const checkPage = (name: string, ready: () => Promise<unknown>) => checkBothWidths(page, name, ready, shots);
  const headerButton = (name: string) => page.getByTestId('traces-grid').getByRole('button', { name });
  const rowIds = () => page.locator('[data-testid=traces-grid] [role=row][data-trace-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-trace-id')));

  it('score columns from the column picker, sorted at their header', async () => {
    await openSignedIn(page, web.baseUrl, web.creds.user, `/p/${projectId}/traces`);
    await page.getByTestId('columns-button').click();
    // A ticked column moves from "Hidden" to "Shown, in order".
    await page.getByRole('checkbox', { name: 'Review: Quality' }).click();
    await page.getByRole('group', { name: 'Columns shown' }).getByText('Review: Quality').waitFor();
    await page.getByRole('checkbox', { name: 'Review: Tone' }).click();
    await page.getByRole('group', { name: 'Columns shown' }).getByText('Review: Tone').waitFor();
    await page.getByTestId('columns-button').click();
    await page.getByRole('group', { name: 'Columns shown' }).waitFor({ state: 'detached' });
    await page.getByRole('columnheader', { name: 'Quality' }).waitFor();
    const quality = (id: string) => page.locator(`[data-trace-id="${id}"] [data-column="score:${configs.quality}"]`);
    await expect.poll(() => quality(ids[1]).textContent()).toBe('5');
    expect(await quality(ids[2]).textContent()).toBe('–');
    expect(await page.locator(`[data-trace-id="${ids[0]}"] [data-column="score:${configs.tone}"]`).textContent()).toBe('rude');
    // Tone is categorical: its header does not sort.
    expect(await page.getByRole('columnheader', { name: 'Tone' }).getByRole('button').count()).toBe(0);

    await headerButton('Quality').click();
    await page.waitForURL(/sort=score/);
    await expect.poll(rowIds).toEqual([ids[1], ids[0], ids[2]]);
    expect(await page.getByRole('columnheader', { name: 'Quality' }).getAttribute('aria-sort')).toBe('descending');
    await headerButton('Quality').click();
    await page.waitForURL(/dir=asc/);
    // Lowest first; the unscored trace stays last.
    await expect.poll(rowIds).toEqual([ids[0], ids[1], ids[2]]);
    expect(await page.getByLabel('Sort').inputValue()).toBe(`score:${configs.quality}:asc`);
  });

  it('a score filter, kept in the URL, shown as a chip', async () => {
    await page.getByRole('button', { name: 'Filters' }).click();
    await page.getByLabel('Review score').selectOption({ label: 'Tone' });
    await page.getByLabel('Value').selectOption('rude');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/score=/);
    const chip = page.getByLabel('Active filters').getByText('Score: Tone = rude');
    await chip.waitFor();
    await expect.poll(rowIds).toEqual([ids[0]]);
    // The URL alone brings it back.
    await page.reload();
    await chip.waitFor();
    await expect.poll(rowIds).toEqual([ids[0]]);
    await page.getByLabel('Active filters').getByLabel('Remove filter Score').click();
    await expect.poll(rowIds).toEqual([ids[0], ids[1], ids[2]]);

    // A numeric range from the URL, with the columns and the sort it keeps.
    const cols = ['time', 'input', 'output', `score:${configs.quality}`, `score:${configs.tone}`, 'cost', 'latency'].map(encodeURIComponent).join(',');
    await page.goto(url(`/p/${projectId}/traces?score=${encodeURIComponent(`${configs.quality}:2..`)}&sort=${encodeURIComponent(`score:${configs.quality}`)}&cols=${encodeURIComponent(cols)}`));
    const range = page.getByLabel('Active filters').getByText('Score: Quality ≥ 2');
    await range.waitFor();
    await expect.poll(rowIds).toEqual([ids[1], ids[0]]);
    // (On a phone the list has no header row: the chip says the page is ready.)
    await checkPage('review-scores-list', () => range.waitFor());
  });

  it('analytics: the review scores charted per config', async () => {
    await openInApp(page, url(`/p/${projectId}/analytics`));
    // The default dashboard: a mean per numeric config, the scores given per config (2 each).
    const means = page.getByRole('figure', { name: 'Review scores (mean): 1 series' });
    const given = page.getByRole('figure', { name: 'Review scores given: 4' });
    // Scrolled to the score charts, below the others.
    await checkPage('review-scores-analytics', async () => (await means.waitFor(), await means.scrollIntoViewIfNeeded()));
    await means.locator('.recharts-legend-wrapper').getByText('Quality').waitFor();
    await given.locator('.recharts-legend-wrapper').getByText('Quality').waitFor();
    await given.locator('.recharts-legend-wrapper').getByText('Tone').waitFor();
    // The chart data says 2 of each, as the figure's name sums them.
    const data = await web.request('POST', '/api/dashboards/default/charts/score-counts/data', { authToken: web.creds.projectApiKey, body: {} });
    expect(data.body.series.map((s: { name: string; total: number }) => [s.name, s.total]).sort()).toEqual([['Quality', 2], ['Tone', 2]]);
    // axe over a dozen charts' SVG takes a while, twice (desktop and phone).
  }, 120_000);

  it("an experiment run's rows show their traces' scores", async () => {
    await openInApp(page, url(`/p/${projectId}/experiments/reviewed-run?runId=run-1`));
    const cells = page.getByTestId('row-scores');
    await checkPage('review-scores-run', () => cells.first().waitFor());
    await expect.poll(() => cells.allTextContents()).toEqual(['Quality: 2Tone: rude', 'Quality: 5Tone: friendly', '–']);
  });
});
