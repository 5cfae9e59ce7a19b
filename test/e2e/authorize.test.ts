import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, seriousViolations, saveScreenshot } from '../support/browser.ts';

/**
 * `{endpoint}/authorize`, the URL the LangWatch SDKs' login() prints: signed out it goes
 * through the sign-in page and back; signed in it makes a project key, and that key is what
 * login() then checks (POST /api/auth/validate) and traces with.
 */
describe.runIf(hasChromium)('the authorize page in a real browser', () => {
  const kind = appDatabaseKinds[0];
  let web: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    web = await startApp(kind);
    browser = await workerBrowser();
  });
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
  });

  for (const width of [1280, 390]) {
    it(`signs in, comes back and creates a key that login() accepts (${width} px)`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      context.setDefaultTimeout(15_000);
      const page = await context.newPage();
      await page.goto(`${web.baseUrl}/authorize`);
      await page.waitForURL(/\/signin\?redirect=/);
      await page.getByLabel('E-mail').fill(web.creds.user.email);
      await page.locator('input[type=password]').fill(web.creds.user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${web.baseUrl}/authorize`);
      await page.getByRole('heading', { name: 'Authorize an SDK' }).waitFor();
      await expect.poll(() => page.locator('input[aria-haspopup=listbox]').inputValue()).toBe(web.creds.project.name);
      await page.getByRole('button', { name: 'Create a project key' }).click();
      const key = (await page.getByLabel('API key', { exact: true }).innerText()).trim();
      expect(key).toMatch(/^sgp-/);
      expect(await seriousViolations(page)).toEqual([]);
      await saveScreenshot(page, `authorize-${width}`);
      // What login() does with the pasted key.
      const validated = await fetch(`${web.baseUrl}/api/auth/validate`, { method: 'POST', headers: { 'X-Auth-Token': key, 'content-type': 'application/json' }, body: '{}' });
      expect(validated.status).toBe(200);
      expect(await validated.json()).toMatchObject({ projectId: web.creds.project.id });
      await context.close();
    });
  }
});
