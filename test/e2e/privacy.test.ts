import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, seriousViolations, saveScreenshot, SCREENSHOT_DIR, openSignedIn } from '../support/browser.ts';

/** The privacy settings page and the trace view's record, in Debian's Chromium against the real server. */
describe.runIf(hasChromium)('privacy at ingest in a real browser', () => {
  const kind = appDatabaseKinds[0];
  let web: TestApp;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    web = await startApp(kind);
    browser = await workerBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
  });
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
  });

  const url = (p: string) => web.baseUrl + p;
  const shot = async (name: string) => {
    if (!SCREENSHOT_DIR) return;
    await saveScreenshot(page, name, { fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await saveScreenshot(page, `${name}-phone`, { fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  };

  it('an administrator sets masking, sees a refused pattern next to its field, and the trace view shows what was removed', async () => {
    const projectId = web.creds.project.id;
    await openSignedIn(page, web.baseUrl, web.creds.user, `/p/${projectId}/settings/privacy`);
    await page.getByRole('heading', { name: 'Privacy at ingest' }).waitFor();
    await page.getByText('Mask', { exact: true }).click();
    await page.getByRole('button', { name: 'Add a pattern' }).click();
    await page.getByLabel('Pattern 1 name').fill('EMPLOYEE_ID');
    await page.getByLabel('Pattern 1 expression').fill('EMP-(?=\\d)');
    await page.getByRole('button', { name: 'Save' }).click();
    // Said at the field itself (its description), not only in the alert.
    const field = page.getByLabel('Pattern 1 expression');
    await page.locator('[aria-label="Pattern 1 expression"][aria-invalid="true"]').waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('.mantine-TextInput-error').first().textContent()).toMatch(/RE2/);
    expect(await seriousViolations(page)).toEqual([]);
    await shot('privacy-settings-error');

    await page.getByLabel('Pattern 1 expression').fill('EMP-\\d{6}');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/Privacy settings saved\. Data arriving from/).waitFor();
    const saved = await web.request('GET', '/api/privacy/settings', { token: web.creds.projectApiKey });
    expect(saved.body).toMatchObject({ mode: 'mask', patterns: [{ name: 'EMPLOYEE_ID', pattern: 'EMP-\\d{6}' }] });
    await shot('privacy-settings');

    const at = Date.now() - 60_000;
    const sent = await web.request('POST', '/api/collector', {
      token: web.creds.projectApiKey,
      body: { trace_id: 'privacy-e2e', spans: [{ span_id: 'p1', type: 'chain', input: { type: 'text', value: 'I am jane.roe@example.com, badge EMP-123456' }, output: { type: 'text', value: 'Hello!' }, timestamps: { started_at: at, finished_at: at + 50 } }] },
    });
    expect(sent.status, sent.text).toBe(200);
    await page.goto(url(`/p/${projectId}/traces/privacy-e2e`));
    const record = page.getByTestId('trace-redactions');
    await record.waitFor();
    expect(await record.textContent()).toContain('2 values redacted: 1 EMAIL_ADDRESS in input, 1 EMPLOYEE_ID in input');
    expect(await page.locator('#trace-input').textContent()).toContain('<EMAIL_ADDRESS>');
    expect(await seriousViolations(page)).toEqual([]);
    await shot('privacy-trace');
  });
});
