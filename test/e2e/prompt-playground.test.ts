import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, seriousViolations, saveScreenshot, openSignedIn } from '../support/browser.ts';
import { PHONE, unreachableActions, widerThanScreen } from '../support/phone-width.ts';
import { agentTrace } from '../support/sample-traces.ts';
import { startFakeServer, streamReply, streamToolCallReply, type FakeServer } from '../evaluators/fake-servers.ts';

/**
 * The prompt page's playground in Debian's Chromium: variables filled from a dataset row and a
 * trace, two columns (two models) streaming side by side against the loopback OpenAI-compatible
 * server, and the second column saved as a new version. Desktop 1280 and phone 390.
 */
describe.runIf(hasChromium).each(appDatabaseKinds)('the prompt playground in a real browser (%s)', (kind) => {
  let web: TestApp;
  let fake: FakeServer;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  let promptId = '';
  const shots = kind === appDatabaseKinds[0];

  beforeAll(async () => {
    fake = await startFakeServer();
    // Each model answers in its own words, slowly enough to watch both stream at once.
    // Its own list of models (GET /v1/models) holds one more than the provider was set with.
    fake.fallback = (req) =>
      req.method === 'GET' && req.path === '/v1/models'
        ? { kind: 'json', body: { object: 'list', data: ['gpt-4o-mini', 'llama3', 'qwen2.5:7b'].map((id) => ({ id, object: 'model' })) } }
        : req.body?.model === 'llama3'
        ? streamReply(['Your parcel ', 'is on ', 'its way ', 'and arrives ', 'on Friday.'], { gapMs: 250, model: 'llama3', usage: { prompt_tokens: 300, completion_tokens: 14 } })
        : streamReply(['It ', 'arrives ', 'tomorrow ', 'before ', 'noon.'], { gapMs: 250, usage: { prompt_tokens: 300, completion_tokens: 9 } });
    web = await startApp(kind);
    browser = await workerBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(15_000);
    projectId = web.creds.project.id;
    const admin = (method: string, p: string, body?: unknown) => web.request(method, p, { token: web.creds.adminApiKey, projectId, body });
    expect((await admin('POST', '/api/model-providers', { name: 'local', kind: 'openai_compatible', api_key: 'sk-e2e-playground-0001', base_url: `${fake.url}/v1`, models: ['gpt-4o-mini', 'llama3'] })).status).toBe(201);
    const prompt = await admin('POST', '/api/prompts', {
      handle: 'support/reply',
      prompt: 'You answer for {{company}} in one sentence.',
      messages: [{ role: 'user', content: '{{question}}' }],
      inputs: [{ identifier: 'company', type: 'str' }, { identifier: 'question', type: 'str' }],
      model: 'local/gpt-4o-mini',
    });
    expect(prompt.status, prompt.text).toBe(200);
    promptId = prompt.body.id;
    expect((await admin('POST', '/api/dataset', { name: 'Parcel questions', columnTypes: [{ name: 'company', type: 'string' }, { name: 'question', type: 'string' }] })).status).toBe(201);
    expect((await admin('POST', '/api/dataset/parcel-questions/records', { entries: [{ company: 'Acme Post', question: 'Is my parcel lost?' }] })).status).toBe(201);
    expect((await web.request('POST', '/api/collector', { authToken: web.creds.projectApiKey, body: agentTrace('pg-trace-1', Date.now(), { question: 'When does parcel 4417 arrive?' }) })).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
    await fake?.close();
  });

  const column = (n: number) => page.getByRole('region', { name: `Column ${n}` });
  async function accessible() {
    expect(await seriousViolations(page)).toEqual([]);
  }

  it('fills the variables from a dataset row and from a trace', async () => {
    await openSignedIn(page, web.baseUrl, web.creds.user, `/p/${projectId}/prompts/${promptId}?tab=preview`);
    await page.getByRole('button', { name: 'Try it' }).waitFor();

    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'Parcel questions' });
    await page.getByRole('button', { name: 'Fill', exact: true }).click();
    await page.getByText('Filled company, question from row 1.').waitFor();
    expect(await page.getByLabel('company (str)').inputValue()).toBe('Acme Post');
    expect(await page.getByLabel('question (str)').inputValue()).toBe('Is my parcel lost?');

    await page.getByLabel('Trace ID').fill('pg-trace-1');
    await page.getByRole('button', { name: 'Fill from trace' }).click();
    await expect.poll(() => page.getByLabel('question (str)').inputValue()).toBe('When does parcel 4417 arrive?');
    expect(await page.getByLabel('company (str)').inputValue()).toBe('Acme Post');
  });

  it("picks a column's model from the provider's live list of models, or types one it lacks", async () => {
    await page.getByRole('button', { name: 'Add column' }).click();
    const model = column(2).getByRole('combobox', { name: 'Model' });
    await model.click();
    // qwen2.5:7b is only in what the server lists now, not in the models the provider was set with.
    await model.fill('qwen');
    await page.getByRole('option', { name: 'local/qwen2.5:7b' }).click();
    expect(await model.inputValue()).toBe('local/qwen2.5:7b');
    expect(fake.requests.some((r) => r.method === 'GET' && r.path === '/v1/models')).toBe(true);
    await column(2).getByRole('combobox', { name: 'Model' }).fill('local/my-finetune');
    await page.keyboard.press('Escape');
    expect(await column(2).getByRole('combobox', { name: 'Model' }).inputValue()).toBe('local/my-finetune');
  });

  it('runs two models side by side, both streaming at once, each with its TTFT, tokens and cost', async () => {
    await column(2).getByRole('combobox', { name: 'Model' }).fill('llama');
    await page.getByRole('option', { name: 'local/llama3' }).click();
    await column(2).getByRole('button', { name: 'Parameters and tools' }).click();
    await column(2).getByLabel('Temperature').fill('0.2');
    await column(2).getByLabel('Max tokens').fill('120');

    const before = fake.requests.length;
    await page.getByRole('button', { name: 'Try it' }).click();
    // Both columns are mid-answer together: some text in, not all of it, each saying it streams
    // (read in one look: the streams end about half a second later).
    await expect
      .poll(async () => {
        const [a, b, streamingA, streamingB] = await Promise.all([
          column(1).getByTestId('answer').textContent(),
          column(2).getByTestId('answer').textContent(),
          column(1).getByText('streaming').count(),
          column(2).getByText('streaming').count(),
        ]);
        return [a, b].every((t) => !!t && t !== '…' && !t.endsWith('noon.') && !t.endsWith('Friday.')) && streamingA === 1 && streamingB === 1;
      }, { timeout: 10_000, interval: 50 })
      .toBe(true);

    await column(1).getByTestId('run-stats').waitFor();
    await column(2).getByTestId('run-stats').waitFor();
    expect(await column(1).getByTestId('answer').textContent()).toBe('It arrives tomorrow before noon.');
    expect(await column(2).getByTestId('answer').textContent()).toBe('Your parcel is on its way and arrives on Friday.');
    const stats = await column(1).getByTestId('run-stats').textContent();
    expect(stats).toMatch(/Time to first token[\d.]+ m?s/);
    expect(stats).toContain('300 in · 9 out');
    expect(stats).toMatch(/Cost\$0\.\d{4}|Cost<\$0\.0001/);
    expect(await column(2).getByTestId('run-stats').textContent()).toContain('300 in · 14 out');

    const sent = fake.requests.slice(before).filter((r) => r.method === 'POST');
    expect(sent).toHaveLength(2);
    const llama = sent.find((r) => r.body.model === 'llama3')!;
    expect(llama.body).toMatchObject({ stream: true, temperature: 0.2, max_tokens: 120 });
    expect(llama.body.messages).toEqual([
      { role: 'system', content: 'You answer for Acme Post in one sentence.' },
      { role: 'user', content: 'When does parcel 4417 arrive?' },
    ]);
    expect(sent.find((r) => r.body.model === 'gpt-4o-mini')!.body.temperature).toBeUndefined();

    // Side by side at 1280.
    const [a, b] = [await column(1).boundingBox(), await column(2).boundingBox()];
    expect(Math.abs(a!.y - b!.y)).toBeLessThan(2);
    expect(b!.x).toBeGreaterThan(a!.x + a!.width - 1);
    await accessible();
    if (shots) {
      // Tall enough for both columns' answers and the parameters.
      await page.setViewportSize({ width: 1280, height: 1450 });
      await saveScreenshot(page, 'prompt-playground');
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('saves the winning column as a new version with its model and parameters', async () => {
    await column(2).getByRole('button', { name: 'Save as new version' }).click();
    await column(2).getByLabel('Commit message').fill('llama3 answers warmer');
    await column(2).getByRole('button', { name: 'Save version' }).click();
    await column(2).getByText('Saved as version 2.').waitFor();
    const saved = await web.request('GET', '/api/prompts/support%2Freply', { authToken: web.creds.projectApiKey });
    expect(saved.body).toMatchObject({ version: 2, model: 'local/llama3', commitMessage: 'llama3 answers warmer', parameters: { temperature: 0.2, max_tokens: 120 }, prompt: 'You answer for {{company}} in one sentence.' });
    await accessible();
  });

  it('declares a tool in a column and shows the call the model made', async () => {
    await page.getByRole('button', { name: 'Remove column 2' }).click();
    await column(2).waitFor({ state: 'detached' });
    await column(1).getByRole('button', { name: 'Parameters and tools' }).click();
    const tool = { type: 'function', function: { name: 'track_parcel', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } } };
    await column(1).getByLabel('Tools').fill(JSON.stringify([tool]));
    await column(1).getByLabel('Tool choice').fill('required');
    fake.queue(streamToolCallReply('track_parcel', ['{"id":', '"4417"}']));
    await page.getByRole('button', { name: 'Try it' }).click();
    const call = column(1).getByTestId('tool-call');
    await call.waitFor();
    expect(await call.textContent()).toContain('Tool call: track_parcel');
    expect(await call.textContent()).toContain('"id": "4417"');
    const sent = fake.requests.at(-1)!.body;
    expect(sent.tools[0]).toMatchObject({ type: 'function', function: { name: 'track_parcel' } });
    expect(sent.tool_choice).toBe('required');
    await column(1).getByTestId('run-stats').waitFor();
    await accessible();
    // Two columns again for the phone check; the new one starts without an answer.
    await page.getByRole('button', { name: 'Add column' }).click();
    await column(2).waitFor();
    expect(await column(2).getByTestId('run-result').count()).toBe(0);
  });

  it('at phone width the columns stack, nothing is wider than the screen, and every action can be reached', async () => {
    await page.setViewportSize(PHONE);
    await column(2).waitFor();
    const [a, b] = [await column(1).boundingBox(), await column(2).boundingBox()];
    expect(b!.y).toBeGreaterThanOrEqual(a!.y + a!.height - 1);
    expect(Math.abs(a!.x - b!.x)).toBeLessThan(2);
    expect(await widerThanScreen(page)).toEqual([]);
    expect(await unreachableActions(page)).toEqual([]);
    await accessible();
    if (shots) {
      await column(2).getByRole('heading', { name: 'Column 2' }).scrollIntoViewIfNeeded();
      await saveScreenshot(page, 'prompt-playground-phone');
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("an evaluator's model setting offers the same live list, and free text", async () => {
    await page.goto(`${web.baseUrl}/p/${projectId}/evaluators/llm/llm_score`);
    const model = page.getByRole('combobox', { name: 'model' });
    await model.click();
    await model.fill('local/');
    await page.getByRole('option', { name: 'local/qwen2.5:7b' }).click();
    expect(await model.inputValue()).toBe('local/qwen2.5:7b');
    await model.fill('local/not-listed-yet');
    expect(await model.inputValue()).toBe('local/not-listed-yet');
    await accessible();
  });
});
