import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { hasChromium, launchBrowser } from '../test/support/browser.ts';
import { UI_DIR } from '../src/web-app.ts';
import { median, type BenchServer } from './lib.ts';

/** Gzip bytes of the app's JavaScript files a page load fetched (their .gz twins in dist/ui). */
function gzipBytes(urls: Set<string>): number {
  let total = 0;
  for (const u of urls) {
    const file = path.join(UI_DIR, new URL(u).pathname);
    total += fs.statSync(fs.existsSync(`${file}.gz`) ? `${file}.gz` : file).size;
  }
  return total;
}

/** Milliseconds from navigation start to `ready` resolving, in the page's own clock. */
async function timed(page: Page, url: string, ready: () => Promise<unknown>): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  await ready();
  return page.evaluate(() => performance.now());
}

/**
 * The web app in Debian's Chromium against the bench server (its 100k traces and the
 * 10,000-span trace): the first page's JavaScript, the traces list's first render, and the
 * big trace opened (tree, waterfall and the selected span drawn), p50 of `runs` loads.
 */
export async function benchWeb(s: BenchServer, bigTraceId: string, runs = 5) {
  if (!hasChromium) return null;
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const scripts = new Set<string>();
    page.on('response', (r) => {
      if (r.url().includes('/assets/') && r.url().endsWith('.js')) scripts.add(r.url());
    });
    await page.goto(`${s.baseUrl}/signin`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const signInJs = gzipBytes(scripts);
    scripts.clear();
    await page.getByLabel('E-mail').fill(s.creds.user.email);
    await page.locator('input[type=password]').fill(s.creds.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const projectId = s.creds.project.id;
    await page.waitForURL(`**/p/${projectId}/traces`);
    await page.locator('[role=row][data-trace-id]').first().waitFor();
    const listJs = gzipBytes(scripts);

    const listUrl = `${s.baseUrl}/p/${projectId}/traces`;
    const list: number[] = [];
    for (let i = 0; i < runs; i++) list.push(await timed(page, listUrl, () => page.locator('[role=row][data-trace-id]').first().waitFor()));

    // Responsive at 100k traces: scroll the virtualized list by 2,000 rows (20 pages fetched on the way).
    const grid = page.getByTestId('traces-grid');
    const t0 = Date.now();
    for (let k = 0; k < 20; k++) {
      await grid.evaluate((el) => (el.scrollTop = el.scrollHeight));
      const wanted = 100 * (k + 2);
      await page.waitForFunction(`Number(document.querySelector('[role=table]').getAttribute('aria-rowcount')) > ${wanted}`, undefined, { timeout: 10_000 }).catch(() => undefined);
    }
    const scrolled = Date.now() - t0;
    const rowsLoaded = Number(await grid.getAttribute('aria-rowcount')) - 1;

    const traceUrl = `${s.baseUrl}/p/${projectId}/traces/${bigTraceId}`;
    const trace: number[] = [];
    for (let i = 0; i < runs; i++) {
      trace.push(
        await timed(page, traceUrl, async () => {
          await page.locator('[role=treeitem]').nth(20).waitFor();
          await page.getByTestId('span-detail').waitFor();
        }),
      );
    }
    // Keyboard to the last of the 10,000 spans and back: how long the virtualized tree takes.
    await page.getByTestId('span-tree').focus();
    const k0 = Date.now();
    await page.keyboard.press('End');
    await page.locator('[role=treeitem][aria-posinset="10000"][aria-selected=true]').waitFor();
    await page.keyboard.press('Home');
    await page.locator('[role=treeitem][aria-posinset="1"][aria-selected=true]').waitFor();
    const endHome = Date.now() - k0;
    return { signInJsGzip: signInJs, listJsGzip: listJs, listFirstRender: median(list), listRuns: list, scroll2000Rows: scrolled, rowsLoaded, traceOpen: median(trace), traceRuns: trace, treeEndHome: endHome };
  } finally {
    await browser.close();
  }
}
