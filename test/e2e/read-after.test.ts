import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, signIn } from '../support/browser.ts';

/**
 * The web app sends back the newest `X-Spyglass-Read-After` it was answered, so a browser reads
 * its own writes whichever server process answers next (docs/operating.md). A server answers
 * the header only with read replicas (test/replicas proves that side); here the positions are
 * added to the real server's answers on their way to the browser, and the test reads what the
 * app then sends: on the client's requests, its plain fetches and index.html's early requests.
 */
describe.runIf(hasChromium)('the web app sends X-Spyglass-Read-After back', () => {
  const kind = appDatabaseKinds[0];
  const HEADER = 'x-spyglass-read-after';
  let web: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Position added to answers of the addresses matching each pattern. */
  const inject = new Map<RegExp, string>();
  let sent: { url: string; method: string; readAfter: string | undefined }[] = [];

  beforeAll(async () => {
    web = await startApp(kind);
    browser = await workerBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(20_000);
    await context.route('**/api/**', async (route) => {
      const url = route.request().url();
      const position = [...inject].find(([pattern]) => pattern.test(url))?.[1];
      if (position === undefined) return route.continue();
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), [HEADER]: position } });
    });
    page = await context.newPage();
    page.on('request', (r: Request) => {
      if (new URL(r.url()).pathname.startsWith('/api/')) sent.push({ url: new URL(r.url()).pathname, method: r.method(), readAfter: r.headers()[HEADER] });
    });
  });
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
  });

  const after = (path: string) => sent.filter((r) => r.url === path);

  /** Reloads the traces list, forgetting what was sent before, until its search has been asked. */
  const reloadList = async () => {
    sent = [];
    await page.reload();
    await expect.poll(() => after('/api/trace/search').length).toBeGreaterThan(0);
  };

  it('sends the position a write answered on every later request, the traces search among them', async () => {
    inject.set(/\/api\/auth\/signin$/, '0/16B3748');
    await signIn(page, web.baseUrl, web.creds.user, web.creds.project.id);
    await expect.poll(() => after('/api/trace/search').length).toBeGreaterThan(0);
    const signin = sent.findIndex((r) => r.url === '/api/auth/signin');
    expect(signin).toBeGreaterThanOrEqual(0);
    expect(sent[signin].readAfter).toBeUndefined();
    const later = sent.slice(signin + 1);
    expect(later.length).toBeGreaterThan(0);
    expect(later.filter((r) => r.readAfter !== '0/16B3748')).toEqual([]);
    inject.clear();
  });

  it('keeps it across a reload: index.html early requests carry it too', async () => {
    await reloadList();
    expect(after('/api/auth/session')[0]?.readAfter).toBe('0/16B3748');
    expect(after('/api/trace/search')[0]?.readAfter).toBe('0/16B3748');
  });

  it('keeps the newest position: an older answer does not replace it, a newer one does', async () => {
    inject.set(/\/api\/auth\/session$/, '0/1');
    await reloadList();
    inject.clear();
    await reloadList();
    expect(sent.map((r) => r.readAfter)).toEqual(sent.map(() => '0/16B3748'));

    inject.set(/\/api\/auth\/session$/, '1/0');
    await reloadList();
    inject.clear();
    await reloadList();
    expect(sent.map((r) => r.readAfter)).toEqual(sent.map(() => '1/0'));
  });
});
