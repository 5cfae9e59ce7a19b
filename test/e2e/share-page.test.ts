import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, launchBrowser } from '../support/browser.ts';

describe.runIf(hasChromium)('shared trace page in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    t = await startApp('pglite');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the trace to a visitor without credentials, and nothing after unsharing', async () => {
    const now = Date.now();
    await t.request('POST', '/api/collector', {
      authToken: t.creds.projectApiKey,
      body: {
        trace_id: 'shared-e2e',
        spans: [
          { span_id: 'root', type: 'agent', name: 'support agent', input: { type: 'text', value: 'Where is my <parcel>?' }, output: { type: 'text', value: 'It ships tomorrow.' }, timestamps: { started_at: now - 3000, finished_at: now - 1000 } },
          { span_id: 'llm', parent_id: 'root', type: 'llm', model: 'gpt-4o-mini', name: 'chat', input: { type: 'chat_messages', value: [{ role: 'user', content: 'Where is my <parcel>?' }] }, output: { type: 'chat_messages', value: [{ role: 'assistant', content: 'It ships tomorrow.' }] }, metrics: { prompt_tokens: 12, completion_tokens: 5 }, timestamps: { started_at: now - 2900, finished_at: now - 1100 } },
        ],
      },
    });
    const { path } = (await t.request('POST', '/api/trace/shared-e2e/share', { token: t.creds.projectApiKey })).body;
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = await page.goto(t.baseUrl + path);
    expect(response?.status()).toBe(200);
    expect(await page.textContent('#trace-input')).toBe('Where is my <parcel>?'); // escaped, shown as text
    expect(await page.textContent('#trace-output')).toBe('It ships tomorrow.');
    await page.click('details[data-span-id="llm"] > summary');
    expect(await page.isVisible('details[data-span-id="llm"] .msg')).toBe(true);
    expect(await page.textContent('details[data-span-id="llm"] summary')).toContain('gpt-4o-mini');
    await page.screenshot({ path: process.env.SHARE_SCREENSHOT ?? `${t.dataDir}/share.png`, fullPage: true });

    await t.request('POST', '/api/trace/shared-e2e/unshare', { token: t.creds.projectApiKey });
    const gone = await page.goto(t.baseUrl + path);
    expect(gone?.status()).toBe(404);
    expect(await page.textContent('h1')).toContain('not shared');
    await context.close();
  });
});
