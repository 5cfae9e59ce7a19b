import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp, JOBS_RUN_BY_HAND } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, seriousViolations, saveScreenshot, SCREENSHOT_DIR, openSignedIn } from '../support/browser.ts';
import { sections } from '../support/sections.ts';
import { agentTrace } from '../support/sample-traces.ts';

/**
 * The web app's part 2 in Debian's Chromium against the real server: prompts (versions,
 * diff, tags, compile), the evaluator catalogue and playground, a monitor evaluating a
 * trace the test sends, and the analytics dashboard counting the test's traces.
 */
describe.runIf(hasChromium)('prompts, evaluators, monitors and analytics in a real browser', () => {
  const kind = appDatabaseKinds[0];
  /** Real time plus a skew the test moves forward: monitors wait 30 s after a trace's last span. */
  let skew = 0;
  const clock = { now: () => new Date(Date.now() + skew) };
  let web: TestApp;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  let key = '';
  const sent: string[] = [];

  beforeAll(async () => {
    web = await startApp(kind, { clock, fresh: true, env: JOBS_RUN_BY_HAND });
    browser = await workerBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(8000);
    projectId = web.creds.project.id;
    key = web.creds.projectApiKey;
    await openSignedIn(page, web.baseUrl, web.creds.user, `/p/${projectId}/traces`);
  });
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
  });

  const url = (p: string) => web.baseUrl + p;
  async function accessible() {
    expect(await seriousViolations(page)).toEqual([]);
  }
  /** The page from its top (the form under test may have scrolled it). */
  async function screenshot(name: string) {
    if (!SCREENSHOT_DIR) return;
    await page.locator('.page').first().evaluate((el) => el.scrollTo(0, 0));
    await saveScreenshot(page, name);
  }
  async function send(traceId: string, question: string, startedAt = Date.now()) {
    const res = await web.request('POST', '/api/collector', { authToken: key, body: agentTrace(traceId, startedAt, { question }) });
    expect(res.status).toBe(200);
    sent.push(traceId);
  }

  it('creates a prompt, saves a second version, shows the diff, tags it production and compiles it', async () => {
    await (await sections(page)).getByRole('link', { name: 'Prompts' }).click();
    await page.waitForURL('**/prompts');
    await page.getByText('No prompts yet').waitFor();
    await page.getByRole('button', { name: 'New prompt' }).click();
    await page.getByRole('textbox', { name: 'Handle', exact: true }).fill('support/reply');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(/\/prompts\/[^/]+$/);
    await page.getByText('v1 · 1 version').waitFor();

    // Version 2: a system prompt and a message with variables, two typed inputs, a JSON output.
    await page.getByLabel('System prompt').fill('You answer for {{company}} in at most {{limit}} words.');
    await page.getByLabel('Content of message 1').fill('{{question}}');
    await page.getByRole('button', { name: 'Add message' }).click();
    await page.getByLabel('Role of message 2').selectOption('assistant');
    await page.getByLabel('Content of message 2').fill('Happy to help.');
    await page.getByRole('button', { name: 'Move message 2 up' }).click();
    expect(await page.getByLabel('Content of message 1').inputValue()).toBe('Happy to help.');
    await page.getByRole('button', { name: 'Move message 1 down' }).click();
    await page.getByLabel('Input 1 name').fill('company');
    await page.getByRole('button', { name: 'Add input' }).click();
    await page.getByLabel('Input 2 name').fill('question');
    await page.getByRole('button', { name: 'Add input' }).click();
    // A name declared twice: the API's refusal in words, next to that input's name (not the field's path under the form).
    await page.getByLabel('Input 3 name').fill('company');
    await page.getByRole('textbox', { name: 'Commit message' }).fill('Company, question and a word limit');
    await page.getByRole('button', { name: 'Save version' }).click();
    const twice = page.getByText('"company" is declared twice.', { exact: true });
    await twice.waitFor();
    expect(await page.getByLabel('Input 3 name').getAttribute('aria-describedby')).toContain(await twice.getAttribute('id'));
    expect(await page.getByText('inputs.2.identifier').count()).toBe(0);
    await page.getByLabel('Input 3 name').fill('limit');
    await page.getByLabel('Input 3 type').selectOption('float');
    await page.getByLabel('Output 1 type').selectOption('json_schema');
    await page.getByLabel('JSON Schema of output output').waitFor();
    await accessible();
    await screenshot('prompt-edit');
    await page.getByRole('button', { name: 'Save version' }).click();
    await page.getByText('v2 · 2 versions').waitFor();

    const stored = (await web.request('GET', '/api/prompts/support%2Freply', { authToken: key })).body;
    expect(stored).toMatchObject({
      version: 2,
      commitMessage: 'Company, question and a word limit',
      prompt: 'You answer for {{company}} in at most {{limit}} words.',
      messages: [
        { role: 'user', content: '{{question}}' },
        { role: 'assistant', content: 'Happy to help.' },
      ],
      inputs: [
        { identifier: 'company', type: 'str' },
        { identifier: 'question', type: 'str' },
        { identifier: 'limit', type: 'float' },
      ],
      authorId: web.creds.user.id,
    });
    expect(stored.response_format?.type).toBe('json_schema');

    // History: who changed what and when, the diff of v1 and v2, and the production tag.
    const history = page.url();
    expect(history).toContain('tab=history');
    const diff = page.getByTestId('version-diff');
    await diff.waitFor();
    expect(await diff.textContent()).toContain('You answer for {{company}} in at most {{limit}} words.');
    expect(await diff.textContent()).toContain('You are a helpful assistant.');
    expect(await diff.getByRole('group', { name: /Inputs: v1 and v2/ }).textContent()).toContain('limit: float');
    await page.getByRole('button', { name: 'Tag version 2' }).click();
    await page.getByRole('menuitem', { name: 'production' }).click();
    await page.locator('[data-version="2"]').getByText('production', { exact: true }).waitFor();
    expect((await web.request('GET', '/api/prompts/support%2Freply:production', { authToken: key })).body.version).toBe(2);
    // The tag menu closes with a transition; axe would catch it half gone.
    await page.getByRole('menu').waitFor({ state: 'detached' });
    await accessible();
    await screenshot('prompt-history');

    // Compile: the declared types are checked before the request, then rendered.
    await page.getByRole('tab', { name: 'Preview and try' }).click();
    await page.getByLabel('company (str)').fill('Acme');
    await page.getByLabel('question (str)').fill('Where is my parcel?');
    await page.getByLabel('limit (float)').fill('many');
    await page.getByRole('button', { name: 'Compile' }).click();
    await page.getByText('must be a number').waitFor();
    await page.getByLabel('limit (float)').fill('50');
    await page.getByRole('button', { name: 'Compile' }).click();
    const compiled = page.getByTestId('compiled');
    await compiled.waitFor();
    expect(await compiled.textContent()).toContain('You answer for Acme in at most 50 words.');
    expect(await compiled.textContent()).toContain('Where is my parcel?');
    await accessible();
    await screenshot('prompt-preview');

    await page.getByRole('tab', { name: 'Code' }).click();
    const curl = page.getByLabel('curl commands', { exact: true });
    await curl.waitFor();
    expect(await curl.textContent()).toContain(`${web.baseUrl}/api/prompts/support%2Freply?tag=production`);
    await accessible();
    await screenshot('prompt-code');

    await page.getByRole('link', { name: 'Prompts' }).first().click();
    const row = page.locator('tr', { hasText: 'support/reply' });
    await expect.poll(() => row.textContent()).toMatch(/project.*v2.*production/);
    await page.getByLabel('Search by handle').fill('nothing-like-it');
    await page.getByText('No prompt matches').waitFor();
    await page.getByLabel('Search by handle').fill('support');
    await row.waitFor();
    await accessible();
    await screenshot('prompts');
  }, 120_000);

  it('lists the evaluators and runs rag/context_recall in its playground', async () => {
    await (await sections(page)).getByRole('link', { name: 'Evaluators' }).click();
    const card = page.locator('[data-evaluator="rag/context_recall"]');
    await card.waitFor();
    expect(await card.textContent()).toContain('contexts, expected_contexts');
    expect(await card.textContent()).toContain('runs locally');
    expect(await page.locator('[data-evaluator="llm/llm_score"]').textContent()).toContain('calls an LLM');
    await accessible();
    await screenshot('evaluators');

    await card.getByRole('link', { name: /playground/ }).click();
    await page.waitForURL('**/evaluators/rag/context_recall');
    await expect.poll(() => page.getByLabel('threshold').inputValue()).toBe('0.5'); // defaults filled (once the catalogue answered)
    await page.getByRole('textbox', { name: 'contexts', exact: true }).fill('kitten');
    await page.getByRole('textbox', { name: 'expected_contexts', exact: true }).fill('sitting\nmitten');
    await page.getByLabel('distance_measure').selectOption('jaro');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByTestId('evaluation-result').waitFor();
    expect(await page.getByTestId('result-score').textContent()).toBe('1');
    expect(await page.getByTestId('evaluation-result').textContent()).toContain('processed');
    await accessible();
    await screenshot('evaluator-playground');
  });

  it('creates a monitor and shows its result on a trace the test sends', async () => {
    await page.goto(url(`/p/${projectId}/monitors/new?evaluator=llm/competitor_blocklist`));
    await page.getByLabel('Name').fill('Competitor watch');
    await page.getByLabel('Labels').fill('support');
    await accessible();
    await screenshot('monitor-new');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.waitForURL(/\/monitors\/mon_/);
    await page.getByRole('heading', { name: 'Competitor watch' }).waitFor();

    await send('mon-trace-google', 'Is Google cheaper than you?');
    skew += 31_000;
    expect(await web.app.services.jobs.runDue()).toBe(1);
    const result = page.locator('[data-testid="monitor-results"] tr[data-trace-id="mon-trace-google"]');
    await result.waitFor({ timeout: 10_000 });
    expect(await result.textContent()).toContain('failed');
    await page.getByTestId('monitor-failed').filter({ hasText: '1' }).waitFor({ timeout: 10_000 });
    await accessible();
    await screenshot('monitor');
    await result.getByRole('link', { name: 'mon-trace-google' }).click();
    await page.waitForURL('**/traces/mon-trace-google');

    await (await sections(page)).getByRole('link', { name: 'Monitors' }).click();
    await page.getByRole('link', { name: 'Competitor watch' }).waitFor();
    await page.getByRole('switch', { name: 'Competitor watch enabled' }).click({ force: true });
    await expect.poll(async () => (await web.request('GET', '/api/monitors', { authToken: key })).body.data[0].enabled).toBe(false);
    await accessible();
    await screenshot('monitors');
  });

  it('shows the dashboard counting the traces the test sent', async () => {
    await send('dash-1', 'First question');
    await send('dash-2', 'Second question');
    await (await sections(page)).getByRole('link', { name: 'Analytics' }).click();
    await page.waitForURL('**/analytics');
    // Analytics is the default dashboard: its charts read the traces the test sent.
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect.poll(() => page.getByTestId('chart-value-total-traces').textContent(), { timeout: 10_000 }).toBe(String(sent.length));
    await page.getByRole('figure', { name: /^Traces:/ }).locator('svg').first().waitFor();
    expect(await page.getByRole('figure', { name: /^Traces:/ }).getAttribute('aria-label')).toBe(`Traces: ${sent.length}`);
    await page.getByRole('figure', { name: /^Evaluation pass rate/ }).locator('svg').first().waitFor();
    await accessible();
    await screenshot('analytics');
    await page.getByLabel('Group charts by').selectOption('model');
    await page.waitForURL(/group=model/);
    await page.getByRole('figure', { name: /^Cost/ }).locator('svg').first().waitFor();
  });
});
