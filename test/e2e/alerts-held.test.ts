import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, signInContext } from '../support/browser.ts';
import { checkBothWidths } from '../support/both-widths.ts';

const HOUR = 3_600_000;

/**
 * The rule editor's preview of a rule that fires only while its judge is trusted, in a real
 * browser: with the judge not trusted the window past the threshold is marked held (with the
 * reason), not fired; without the option the same window is a fire.
 */
describe.runIf(hasChromium)('alert preview of a rule held back by an untrusted judge, in a real browser', () => {
  const kind = appDatabaseKinds[0];
  const clock = new ManualClock(Date.now());
  const windowStart = Math.floor(Date.now() / HOUR) * HOUR;
  let web: TestApp;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    web = await startApp(kind, { clock });
    browser = await workerBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
  });
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
  });

  const call = async (method: string, p: string, body?: unknown) => {
    const res = await web.request(method, p, { authToken: web.creds.projectApiKey, body });
    expect(res.status, res.text).toBeLessThan(300);
    return res.body;
  };

  it('marks the window held back, says why, and fires there once the option is off', async () => {
    const projectId = web.creds.project.id;
    const correct = (await call('POST', '/api/score-configs', { name: 'Correct', kind: 'boolean' })).data.id as string;
    // Three hours ago: people pass the even traces of 60; the judge passes 24 of their 30 passes and 10 of their 30 fails (kappa 0.47, under the default bar).
    const at = windowStart - 3 * HOUR;
    // Each trace's requests in order (the trace, its judge's result, a person's label), the traces
    // side by side: 300 requests, of which only each trace's own wait for one another.
    const held = Array.from({ length: 60 }, async (_, i) => {
      const id = `held-${i}`;
      const human = i % 2 === 0;
      const judge = human ? i % 10 !== 0 : i % 6 === 1;
      await call('POST', '/api/collector', { trace_id: id, spans: [{ span_id: `${id}-1`, type: 'llm', input: { type: 'text', value: 'q' }, output: { type: 'text', value: 'a' }, timestamps: { started_at: at + i * 30_000, finished_at: at + i * 30_000 + 100 } }] });
      await call('POST', '/api/evaluations/langevals/exact_match/evaluate', { data: { output: judge ? 'yes' : 'no', expected_output: 'yes' }, trace_id: id, name: 'Exact answers' });
      await call('POST', `/api/annotations/trace/${id}`, { comment: '', isThumbsUp: human, scores: [{ configId: correct, value: human }] });
    });
    // Calm hours on the days before (9 of 10 passed each), so the chart has a line.
    const calm = Array.from({ length: 60 }, async (_, n) => {
      const [d, i] = [1 + Math.floor(n / 10), n % 10];
      const id = `calm-${d}-${i}`;
      const started = windowStart - d * 24 * HOUR + i * 60_000;
      await call('POST', '/api/collector', { trace_id: id, spans: [{ span_id: `${id}-1`, type: 'llm', input: { type: 'text', value: 'q' }, output: { type: 'text', value: 'a' }, timestamps: { started_at: started, finished_at: started + 100 } }] });
      await call('POST', '/api/evaluations/langevals/exact_match/evaluate', { data: { output: i === 0 ? 'no' : 'yes', expected_output: 'yes' }, trace_id: id, name: 'Exact answers' });
    });
    await Promise.all([...held, ...calm]);
    await call('POST', '/api/monitors', { name: 'Exact answers', evaluator: 'langevals/exact_match', enabled: false });

    await signInContext(page.context(), web.baseUrl, web.creds.user);
    await page.goto(`${web.baseUrl}/p/${projectId}/alerts/new`);
    await page.getByRole('heading', { name: 'New alert rule' }).waitFor();
    await page.getByLabel('Name').fill('Exact answers pass less');
    await page.getByLabel('Metric').selectOption('evaluator_pass_rate');
    await page.getByLabel('Evaluator', { exact: true }).selectOption('Exact answers');
    await page.getByLabel('Fire only while this judge is trusted').check();
    await page.getByLabel('Window (minutes)').fill('60');
    await page.getByLabel('When the value is').selectOption('below');
    await page.getByLabel('Value (0 to 1)').fill('0.8');
    await page.getByRole('button', { name: 'Preview the last 30 days' }).click();

    await page.getByText('Would have fired 0 times in the last 30 days; held back in 1 window').waitFor();
    expect(await page.getByTestId('preview-held').textContent()).toMatch(/judge not trusted against Correct: kappa's 95 % lower bound is 0\.\d\d on 60 labels; the bar is 0\.6/);
    expect(await page.locator('.preview-chart [data-held]').count()).toBe(1);
    expect(await page.locator('.preview-chart [data-fire]').count()).toBe(0);
    expect(Number(await page.locator('.preview-chart [data-held]').getAttribute('data-held'))).toBe(at);
    const marks = page.getByRole('list', { name: 'Marked windows' });
    expect(await marks.locator('li').count()).toBe(1);
    expect(await marks.locator('li[data-decision="held"]').textContent()).toContain('56.7 % of 60');
    await checkBothWidths(page, 'alerts-rule-editor-held', () => marks.evaluate((el) => el.scrollIntoView({ block: 'end' })), true);

    // Without the option the same window fires.
    await page.getByLabel('Fire only while this judge is trusted').uncheck();
    await page.getByRole('button', { name: 'Preview the last 30 days' }).click();
    await page.getByText('Would have fired 1 time in the last 30 days', { exact: true }).waitFor();
    expect(await page.locator('.preview-chart [data-fire]').count()).toBe(1);
    expect(await page.locator('.preview-chart [data-held]').count()).toBe(0);
    expect(await page.getByTestId('preview-held').count()).toBe(0);
    expect(await marks.locator('li[data-decision="fired"]').textContent()).toContain('56.7 % of 60');
  }, 240_000);
});
