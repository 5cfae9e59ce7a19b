import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { hasChromium, launchBrowser, signIn } from '../test/support/browser.ts';
import { UI_DIR } from '../src/web-app.ts';
import { median, type BenchServer } from './lib.ts';

/**
 * A browser signed in to the bench server's first project, at 1280x800. `opened` sees the page
 * before it loads anything; `signInShown` is called once the sign-in form is drawn.
 */
export async function signedInPage(s: BenchServer, hooks: { opened?: (page: Page) => void; signInShown?: () => void } = {}): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchBrowser();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })).newPage();
  hooks.opened?.(page);
  await signIn(page, s.baseUrl, s.creds.user, s.creds.project.id, hooks.signInShown);
  return { browser, page };
}

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
  const scripts = new Set<string>();
  let signInJs = 0;
  const { browser, page } = await signedInPage(s, {
    opened: (p) =>
      p.on('response', (r) => {
        if (r.url().includes('/assets/') && r.url().endsWith('.js')) scripts.add(r.url());
      }),
    signInShown: () => {
      signInJs = gzipBytes(scripts);
      scripts.clear();
    },
  });
  try {
    const projectId = s.creds.project.id;
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
