import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { SCREENSHOT_DIR, hasChromium, launchBrowser, signIn } from '../support/browser.ts';
import { checkBothWidths } from '../support/both-widths.ts';
import { agentTrace } from '../support/sample-traces.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { startFakeServer, toolCallReply, type FakeServer } from '../evaluators/fake-servers.ts';

const HOUR = 3_600_000;

/**
 * Four things of evaluation by hand, each in Debian's Chromium against a loopback
 * OpenAI-compatible server without authentication: a provider added in the app without a key,
 * whose own list of models every model picker offers; a monitor whose judge gives scores (no
 * pass/fail) showing their mean, percentiles and distribution over time, and one giving labels
 * showing the count of each; a score config refused at its field, in words; and a filtered, sorted traces list whose first page is the one
 * index.html asked for before the app's code ran, asked for once.
 */
describe.runIf(hasChromium).each(appDatabaseKinds)('evaluation by hand, four steps in a real browser (%s)', (kind) => {
  let web: TestApp;
  let fake: FakeServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectId = '';
  let key = '';
  const shots = kind === appDatabaseKinds[0];
  // The server's clock starts 3 hours ago: two batches of results 2 hours apart fall in two hours of "Last 24 hours".
  const clock = new ManualClock(new Date(Date.now() - 3 * HOUR));
  // The judge's answers, by the trace it is asked about (its output text "answer <n>").
  const LABEL = (n: number) => (n <= 2 ? 'rude' : n === 3 ? 'neutral' : 'friendly');

  beforeAll(async () => {
    fake = await startFakeServer();
    fake.fallback = (req) => {
      if (req.method === 'GET' && req.path === '/v1/models') return { kind: 'json', body: { object: 'list', data: ['gpt-4o-mini', 'judge-large', 'qwen-local'].map((id) => ({ id, object: 'model' })) } };
      const n = Number(/answer (\d)/.exec(JSON.stringify(req.body))?.[1] ?? 1);
      return JSON.stringify(req.body).includes('"label"') ? toolCallReply('evaluation', { reasoning: 'r', label: LABEL(n) }) : toolCallReply('evaluation', { reasoning: 'r', final_score: n });
    };
    web = await startApp(kind, { clock });
    projectId = web.creds.project.id;
    key = web.creds.projectApiKey;
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await signIn(page, web.baseUrl, web.creds.user, projectId);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await fake?.close();
  });

  const project = (p: string) => `${web.baseUrl}/p/${projectId}${p}`;
  const shot = (name: string) => (kind === appDatabaseKinds[0] ? name : `${name}-${kind}`);
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await web.request(method, p, { authToken: key, body });
    expect(res.status, res.text).toBeLessThan(300);
    return res.body;
  };

  it('17. an OpenAI-compatible server is added without a key (the field says so); its own models are offered wherever a model is chosen', async () => {
    await page.goto(project('/settings/model-providers'));
    await page.getByRole('button', { name: 'Add provider' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a model provider' });
    await dialog.getByRole('textbox', { name: /^Name/ }).fill('local');
    await dialog.getByRole('combobox', { name: 'Kind', exact: true }).click();
    await page.getByRole('option', { name: 'OpenAI-compatible server' }).click();
    const apiKey = dialog.getByLabel('API key');
    expect(await apiKey.getAttribute('required')).toBeNull();
    const keyHelp = await apiKey.getAttribute('aria-describedby');
    expect(await dialog.locator(`[id="${keyHelp?.split(' ').find((id) => id.endsWith('-description'))}"]`).textContent()).toContain('Optional: leave empty for a server without authentication');
    await dialog.getByRole('textbox', { name: /^Base URL/ }).fill(`${fake.url}/v1`);
    // "Load models": the server's own list, asked for through Spyglass without any key.
    await dialog.getByRole('button', { name: 'Load models' }).click();
    await dialog.getByText('3 models listed by the server').waitFor();
    const models = dialog.getByRole('combobox', { name: /^Models/ });
    await models.click();
    await page.getByRole('option', { name: 'gpt-4o-mini' }).click();
    await models.click();
    await page.getByRole('option', { name: 'judge-large' }).click();
    await page.keyboard.press('Escape');
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText(/· no key/).first().waitFor();
    const asked = fake.requests.filter((r) => r.method === 'GET' && r.path === '/v1/models');
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((r) => !r.headers.authorization)).toBe(true);

    // qwen-local was not picked when the provider was set: only the server's live list has it.
    const offers = async (picker: ReturnType<Page['getByRole']>) => {
      await picker.click();
      // The picker filters by what is typed (a model already set would hide the rest).
      await picker.fill('qwen');
      await page.getByRole('option', { name: 'local/qwen-local' }).click();
      expect(await picker.inputValue()).toBe('local/qwen-local');
    };
    // A monitor's judge.
    await page.goto(project('/monitors/new?evaluator=llm/llm_score'));
    await offers(page.getByRole('combobox', { name: /^model/i }));
    // A custom judge.
    await page.goto(project('/evaluators/new'));
    await offers(page.getByRole('combobox', { name: 'Model' }));
    // The playground of a prompt.
    const prompt = await call('POST', '/api/prompts', { handle: 'picker/reply', prompt: 'Answer {{question}}', inputs: [{ identifier: 'question', type: 'str' }], model: 'local/gpt-4o-mini' });
    await page.goto(project(`/prompts/${prompt.id}?tab=preview`));
    await offers(page.getByRole('combobox', { name: 'Model' }).first());
    // An experiment's target.
    await call('POST', '/api/dataset', { name: 'Picker questions', columnTypes: [{ name: 'question', type: 'string' }] });
    await page.goto(project('/experiments'));
    await page.getByLabel('New experiment').fill('Picker check');
    await page.getByRole('button', { name: 'Set it up' }).click();
    await page.waitForURL('**/experiments/picker-check/setup**');
    await page.getByRole('combobox', { name: 'Prompt', exact: true }).selectOption('picker/reply');
    await offers(page.getByRole('combobox', { name: 'Model', exact: true }));
  });

  it('16. a score config refused by the API says why next to its field, in words, not as API text at the bottom of the form', async () => {
    await page.goto(project('/queues'));
    const form = page.getByRole('form', { name: 'New score config' });
    await form.getByLabel('Name').fill('Quality');
    await form.getByLabel('From').fill('5');
    await form.getByLabel('To').fill('1');
    await form.getByRole('button', { name: 'Add score' }).click();
    const to = form.getByLabel('To');
    await expect.poll(async () => to.getAttribute('aria-invalid')).toBe('true');
    const help = (await to.getAttribute('aria-describedby')) ?? '';
    const errorId = help.split(' ').find((id) => id.endsWith('-error'));
    expect(await form.locator(`[id="${errorId}"]`).textContent()).toMatch(/greater than min/i);
    // Nothing of the API's own form of the refusal anywhere in the form.
    expect(await form.textContent()).not.toMatch(/body\.max/);
    expect(await form.getByRole('alert').count()).toBe(0);
    await form.getByLabel('To').fill('10');
    await form.getByRole('button', { name: 'Add score' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Score configs' }).getByText('Quality').isVisible()).toBe(true);
  });

  it('12. a monitor whose judge gives scores shows their mean, median, 90th percentile, lowest and highest over time, and their distribution; a labelling one counts each label', async () => {
    const scores = await call('POST', '/api/monitors', { name: 'Helpfulness', evaluator: 'llm/llm_score', settings: { model: 'local/judge-large' } });
    const labels = await call('POST', '/api/monitors', {
      name: 'Tone',
      evaluator: 'llm/llm_category',
      settings: { model: 'local/judge-large', categories: [{ name: 'rude', description: 'r' }, { name: 'neutral', description: 'n' }, { name: 'friendly', description: 'f' }] },
    });
    const batch = async (ns: number[], from: number) => {
      for (const [i, n] of ns.entries()) {
        const t = clock.now().getTime();
        await call('POST', '/api/collector', { trace_id: `judged-${from + i}`, spans: [{ span_id: `judged-${from + i}-1`, type: 'llm', input: { type: 'text', value: 'Where is my parcel?' }, output: { type: 'text', value: `answer ${n}` }, timestamps: { started_at: t - 1000, finished_at: t - 900 } }] });
      }
      clock.advance(31_000);
      await web.app.services.jobs.runDue();
    };
    // 3 hours ago: 1, 2, 2, 3; an hour ago: 3, 4, 4, 5, 5, 5.
    await batch([1, 2, 2, 3], 0);
    clock.advance(2 * HOUR);
    await batch([3, 4, 4, 5, 5, 5], 10);

    await page.goto(project(`/monitors/${scores.id}`));
    await page.getByRole('heading', { name: 'Scores over time' }).waitFor();
    const stat = (id: string) => page.getByTestId(id).textContent();
    // Of all ten: mean 3.4; median (3 + 4) / 2; the 90th percentile 5; lowest 1, highest 5.
    expect(await stat('monitor-mean')).toBe('3.4');
    expect(await stat('monitor-median')).toBe('3.5');
    expect(await stat('monitor-p90')).toBe('5');
    expect(await stat('monitor-range')).toBe('1 – 5');
    expect(await stat('monitor-scored')).toBe('10');
    expect(await page.getByTestId('monitor-pass-rate').count()).toBe(0);
    // Over time: each hour's numbers, newest first.
    await page.getByText(/In numbers, per interval \(2\)/).click();
    const rows = await page
      .getByTestId('monitor-score-intervals')
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)));
    expect(rows).toEqual([
      ['6', '4.33', '4.5', '5', '3', '5'],
      ['4', '2', '2', '2.7', '1', '3'],
    ]);
    // The bars: one per hour, two of them with scores.
    expect(await page.locator('.score-bars .score-box').count()).toBe(2);
    // The distribution: one bin per score.
    const bins = await page.getByTestId('monitor-distribution').locator('li').evaluateAll((lis) => lis.map((li) => li.getAttribute('aria-label')));
    expect(bins).toEqual(['1: 1 of 10', '2: 2 of 10', '3: 2 of 10', '4: 2 of 10', '5: 3 of 10']);
    await checkBothWidths(page, shot('monitor-scores'), () => page.getByTestId('monitor-distribution').waitFor(), shots);

    await page.goto(project(`/monitors/${labels.id}`));
    await page.getByRole('heading', { name: 'Labels over time' }).waitFor();
    const counts = await page.getByTestId('monitor-labels').locator('.stat').evaluateAll((s) => s.map((e) => `${e.querySelector('.stat-label')?.textContent}: ${e.querySelector('.stat-value')?.textContent}`));
    expect(counts).toEqual(['friendly: 5', 'rude: 3', 'neutral: 2']);
    await checkBothWidths(page, shot('monitor-labels'), () => page.getByTestId('monitor-labels').waitFor(), shots);
  });

  it("3. a filtered, sorted traces list opened afresh draws the first page index.html asked for before the app's code ran, and searches once", async () => {
    const now = clock.now().getTime();
    for (let i = 0; i < 6; i++) await call('POST', '/api/collector', agentTrace(`list-${i}`, now - i * 60_000, { labels: i % 2 ? ['support', 'refund'] : ['support'], failTool: i < 3 }));
    const fresh = await context.newPage();
    const searches: string[] = [];
    let searched = () => {};
    const firstSearch = new Promise<void>((resolve) => (searched = resolve));
    fresh.on('request', (r) => {
      if (r.method() !== 'POST' || new URL(r.url()).pathname !== '/api/trace/search') return;
      searches.push(r.postData() ?? '');
      searched();
    });
    // The app's entry is held until a search was sent (or 20 s): one sent before it came from index.html's script.
    let beforeEntry = false;
    await fresh.route(/\/assets\/index-[^/]*\.js$/, async (route) => {
      beforeEntry = await Promise.race([firstSearch.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20_000))]);
      await route.continue();
    });
    await fresh.goto(project('/traces?labels=refund&range=7d&sort=latency&dir=asc'));
    const rows = fresh.locator('[role=row][data-trace-id]');
    await expect.poll(() => rows.evaluateAll((r) => r.map((e) => e.getAttribute('data-trace-id')).sort())).toEqual(['list-1', 'list-3', 'list-5']);
    await fresh.waitForTimeout(1500);
    expect(beforeEntry, "no search before the app's entry").toBe(true);
    expect(searches.length, JSON.stringify(searches)).toBe(1);
    expect(JSON.parse(searches[0])).toMatchObject({ filters: { labels: ['refund'] }, sortBy: 'latency', sortDirection: 'asc', pageSize: 100, startDate: expect.any(Number) });
    await fresh.close();
  });
});
