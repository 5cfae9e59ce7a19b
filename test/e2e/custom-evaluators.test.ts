import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, seriousViolations, signInContext, saveScreenshot } from '../support/browser.ts';
import { PHONE, unreachableActions, widerThanScreen } from '../support/phone-width.ts';
import { startFakeServer, textReply, toolCallReply, type FakeServer, type RecordedRequest } from '../evaluators/fake-servers.ts';

/**
 * Custom evaluators in Debian's Chromium: writing a judge on the Evaluators page (an error the
 * API gives shows next to its field), a new version and the history, Try it, then a monitor
 * with it run over past traces (count and estimated cost before starting, progress). The
 * judge's provider is the loopback OpenAI-compatible fake. Desktop 1280 and phone 390.
 */
describe.runIf(hasChromium).each(appDatabaseKinds)('custom evaluators and backfills in a real browser (%s)', (kind) => {
  let web: TestApp;
  let fake: FakeServer;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  let key = '';
  const shots = kind === appDatabaseKinds[0];

  beforeAll(async () => {
    fake = await startFakeServer();
    fake.fallback = (r: RecordedRequest) => {
      // The model picker asks the provider for its list of models.
      if (r.method === 'GET') return { kind: 'json', body: { object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] } };
      const body = r.body as { tools?: { function: { name: string } }[]; messages: { role: string; content: string }[] };
      const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
      if (body.tools?.[0]?.function.name === 'verdict') return toolCallReply('verdict', { reasoning: 'The tone was checked.', passed: /thank/i.test(user) });
      return textReply('ok');
    };
    web = await startApp(kind);
    browser = await workerBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(10_000);
    projectId = web.creds.project.id;
    key = web.creds.projectApiKey;
    const provider = await web.request('POST', '/api/model-providers', {
      token: web.creds.adminApiKey,
      projectId,
      body: { name: 'local', kind: 'openai_compatible', api_key: 'fake-key-4321', base_url: `${fake.url}/v1`, models: ['gpt-4o-mini'] },
    });
    expect(provider.status, provider.text).toBe(201);
    const now = Date.now();
    for (const [i, output] of ['Thank you, it ships today.', 'No.', 'Thanks for waiting!'].entries()) {
      const at = now - (i + 1) * 3_600_000;
      const res = await web.request('POST', '/api/collector', {
        authToken: key,
        body: { trace_id: `bf-${i}`, spans: [{ span_id: `bf-${i}-a`, type: 'llm', input: { type: 'text', value: 'Where is my parcel?' }, output: { type: 'text', value: output }, timestamps: { started_at: at, finished_at: at + 100 } }] },
      });
      expect(res.status).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
    await fake?.close();
  });

  const url = (p: string) => web.baseUrl + p;
  /** Checks the page (or, with a dialog open, `scope`) at desktop and phone width. */
  async function checkPage(name: string, ready: () => Promise<unknown>, scope = 'body') {
    await ready();
    expect(await seriousViolations(page)).toEqual([]);
    if (shots) await saveScreenshot(page, name);
    await page.setViewportSize(PHONE);
    await ready();
    expect(await widerThanScreen(page), `${name}: wider than the screen`).toEqual([]);
    expect(await unreachableActions(page, scope), `${name}: actions out of reach`).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    if (shots) await saveScreenshot(page, `${name}-phone`, { fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  it('writes a judge: an error shows at its field, then it is created', async () => {
    await signInContext(page.context(), web.baseUrl, web.creds.user);
    await page.goto(url(`/p/${projectId}/evaluators`));
    await page.getByRole('link', { name: 'New evaluator' }).click();
    await page.waitForURL(`**/p/${projectId}/evaluators/new`);
    await page.getByRole('textbox', { name: /^Name/ }).fill('Polite answers');
    await page.getByLabel('Slug').fill('Polite Answers');
    await page.getByRole('combobox', { name: 'Model' }).click();
    await page.getByRole('option', { name: 'local/gpt-4o-mini' }).click();
    await page.getByLabel('Prompt template').fill('Question: {{input}}\nAnswer: {{output}}\nIs the answer polite?');
    await expect.poll(() => page.getByLabel('Variables the template uses').textContent()).toContain('{{output}}');
    await page.getByRole('button', { name: 'Create' }).click();
    // The API's refusal, next to the slug.
    await page.getByText(/must be 1\.\.64 lowercase letters/i).waitFor();
    await checkPage('custom-evaluator-new', () => page.getByText(/must be 1\.\.64 lowercase letters/i).waitFor());
    await page.getByLabel('Slug').fill('polite');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(`**/p/${projectId}/evaluators/custom/polite/edit`);
    await page.getByText('custom · v1').waitFor();
  });

  it('saves a new version, lists the history and tries it on sample data', async () => {
    await page.getByLabel('Prompt template').fill('Question: {{input}}\nAnswer: {{output}}\nIs the answer polite? Be strict.');
    await page.getByLabel('What changed').fill('Stricter');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('custom · v2').waitFor();
    await checkPage('custom-evaluator-editor', () => page.getByLabel('Prompt template').waitFor());
    await page.getByRole('tab', { name: 'History' }).click();
    const versions = page.getByRole('table', { name: 'Versions' });
    await versions.getByText('Stricter').waitFor();
    expect(await versions.locator('tbody tr').count()).toBe(2);
    await page.getByRole('tab', { name: 'Try it' }).click();
    // Both variables are required (marked), and text variables take plain text, not JSON.
    const input = page.getByRole('textbox', { name: /^input/ });
    const output = page.getByRole('textbox', { name: /^output/ });
    for (const field of [input, output]) expect(await page.locator(`label[for="${await field.getAttribute('id')}"]`).textContent()).toMatch(/\*$/);
    await output.fill('Thank you for asking, it arrives today.');
    expect(await page.getByText('not valid JSON yet').count()).toBe(0);
    // A run never starts without a variable the prompt uses: it is said next to it.
    const judged = () => fake.requests.filter((r) => r.method === 'POST').length;
    const sentBefore = judged();
    await page.getByRole('button', { name: 'Run version 2' }).click();
    await page.getByText("Required: the judge's prompt uses {{input}}.").waitFor();
    expect(judged()).toBe(sentBefore);
    await input.fill('Where is my parcel?');
    expect(await page.getByText("Required: the judge's prompt uses {{input}}.").count()).toBe(0);
    await page.getByRole('button', { name: 'Run version 2' }).click();
    await page.getByTestId('evaluation-result').getByText('processed').waitFor();
    // The judge got the typed text as it is.
    expect(JSON.stringify(fake.requests.filter((r) => r.method === 'POST').at(-1)!.body.messages)).toContain('Answer: Thank you for asking, it arrives today.');
    await checkPage('custom-evaluator-try', () => page.getByTestId('evaluation-result').waitFor());
    // Marked as custom on the Evaluators page, with a way back to the editor.
    await page.goto(url(`/p/${projectId}/evaluators`));
    const card = page.locator('[data-evaluator="custom/polite"]');
    await card.getByText('custom · v2').waitFor();
    await card.getByRole('link', { name: 'Edit Polite answers' }).waitFor();
  });

  it('runs a monitor with it over past traces: count and cost first, then progress', async () => {
    const monitor = await web.request('POST', '/api/monitors', { authToken: key, body: { name: 'Politeness', evaluator: 'custom/polite' } });
    expect(monitor.status, monitor.text).toBe(200);
    await page.goto(url(`/p/${projectId}/monitors/${monitor.body.id}`));
    await page.getByRole('button', { name: 'Run over past traces' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run over past traces' });
    await expect.poll(() => dialog.getByTestId('backfill-count').textContent()).toBe('3');
    expect(await dialog.getByTestId('backfill-cost').textContent()).toMatch(/^(<)?\$/);
    await checkPage('monitor-backfill-dialog', () => dialog.getByTestId('backfill-count').waitFor(), '[role=dialog]');
    // A range of one's own: from 2.5 hours ago holds two of the three traces; an end before its start is said, and nothing starts.
    const local = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await dialog.getByLabel('Traces started in').selectOption('custom');
    await dialog.getByLabel('From').fill(local(Date.now() - 150 * 60_000));
    await expect.poll(() => dialog.getByTestId('backfill-count').textContent()).toBe('2');
    await checkPage('monitor-backfill-range', () => dialog.getByLabel('From').waitFor(), '[role=dialog]');
    await dialog.getByLabel('To (empty: now)').fill(local(Date.now() - 200 * 60_000));
    await dialog.getByText('The range ends before it starts.').waitFor();
    expect(await dialog.getByRole('button', { name: 'Start' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Traces started in').selectOption({ label: 'Last 7 days' });
    await expect.poll(() => dialog.getByTestId('backfill-count').textContent()).toBe('3');
    await dialog.getByRole('button', { name: 'Start' }).click();
    await dialog.getByTestId('backfill-run').waitFor();
    for (let i = 0; i < 20 && (await web.app.services.jobs.runDue()) > 0; i++);
    await dialog.getByTestId('backfill-run').getByText('completed').waitFor({ timeout: 15_000 });
    expect(await dialog.getByTestId('backfill-run').textContent()).toContain('3 of 3 traces · 3 evaluated');
    await checkPage('monitor-backfill-progress', () => dialog.getByTestId('backfill-run').getByText('completed').waitFor(), '[role=dialog]');
  });
});
