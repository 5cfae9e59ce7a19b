import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);

/**
 * Where the browser tests leave a screenshot of every page, when asked to: `npm run screenshots`
 * sets SPYGLASS_SCREENSHOTS (docs/screenshots, which docs/web-app.md shows). A plain test run
 * takes none: a full-page screenshot costs Chromium a whole render, and nothing checks them.
 */
export const SCREENSHOT_DIR = process.env.SPYGLASS_SCREENSHOTS ? path.resolve(process.env.SPYGLASS_SCREENSHOTS) : null;

/** `<name>.png` of the page in SCREENSHOT_DIR when this run writes screenshots; nothing otherwise. */
export async function saveScreenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (!SCREENSHOT_DIR) return;
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), ...options });
}

/** Debian's Chromium, headless, with the flags this machine's closed network needs. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The test worker's Chromium, launched by the first browser file the worker runs. */
let workersBrowser: Promise<Browser> | null = null;

/**
 * The test worker's Chromium, shared by the browser files the worker runs one after another
 * (vitest keeps this module between files: `isolate: false`), as the worker's app is: a launch
 * costs about a second of CPU and several seconds of waiting on a loaded machine. Each file works
 * in contexts of its own (cookies, storage and pages apart from every other file's); the contexts
 * an earlier file left open are closed here, so their pages stop polling. A browser that crashed
 * or was closed is launched again.
 */
export async function workerBrowser(): Promise<Browser> {
  const current = workersBrowser ? await workersBrowser.catch(() => null) : null;
  if (current?.isConnected()) {
    await closeContexts(current);
    return current;
  }
  workersBrowser = launchBrowser();
  return workersBrowser;
}

/** Closes the contexts (and their pages) of the worker's Chromium: a file's afterAll, instead of closing the browser. */
export async function closeContexts(browser: Browser | undefined): Promise<void> {
  if (!browser?.isConnected()) return;
  await Promise.all(browser.contexts().map((c) => c.close().catch(() => undefined)));
}

/**
 * Signs `user` in through the API (`POST /api/auth/signin`, as the sign-in form does) and gives
 * `context` the session cookie the answer set: the context's pages open signed in, with no sign-in
 * page loaded and no traces list drawn first. The sign-in form itself is tested in web-app.test.ts.
 */
export async function signInContext(context: BrowserContext, baseUrl: string, user: { email: string; password: string }): Promise<void> {
  const res = await fetch(`${baseUrl}/api/auth/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: user.email, password: user.password }),
  });
  const pair = res.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('spyglass_session='));
  if (res.status !== 200 || !pair) throw new Error(`sign-in of ${user.email} answered ${res.status} without a session: ${await res.text()}`);
  const value = pair.slice(pair.indexOf('=') + 1);
  await context.addCookies([{ name: 'spyglass_session', value, url: baseUrl, httpOnly: true, sameSite: 'Lax' }]);
}

/**
 * `page` opened signed in as `user` at `path` of the app (the project's traces list when left
 * out): the session cookie from `signInContext`, then one page load, the one under test.
 */
export async function openSignedIn(page: Page, baseUrl: string, user: { email: string; password: string }, path: string): Promise<void> {
  await signInContext(page.context(), baseUrl, user);
  await page.goto(`${baseUrl}${path}`);
}

/**
 * `url` (of the app `page` shows) drawn the way a link inside the app draws it: the history
 * changes and the router draws the page, without loading the document, the app's code and its
 * session again (a `page.goto` does all that, most of a page's cost in Chromium). From another
 * origin, or before the app is loaded, a `page.goto`.
 */
export async function openInApp(page: Page, url: string): Promise<void> {
  const target = new URL(url);
  if (new URL(page.url()).origin !== target.origin) {
    await page.goto(url);
    return;
  }
  await page.evaluate((href) => {
    const w = globalThis as unknown as { history: { pushState(s: unknown, t: string, u: string): void; state: unknown }; dispatchEvent(e: unknown): void; PopStateEvent: new (type: string, init: { state: unknown }) => unknown };
    w.history.pushState(w.history.state, '', href);
    w.dispatchEvent(new w.PopStateEvent('popstate', { state: w.history.state }));
  }, target.pathname + target.search + target.hash);
}

/**
 * axe-core's own source, as @axe-core/playwright loads it into pages (axe-core is its dependency,
 * resolved from there).
 */
const AXE_SOURCE: string = createRequire(createRequire(import.meta.url).resolve('@axe-core/playwright'))('axe-core').source;

interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string; html: string }[];
}

/**
 * axe's violations on the page as it is now: every rule axe runs by default, over the whole
 * document, as AxeBuilder's `analyze()` runs them, but cheaper for a page without frames (the
 * app has none). axe is loaded once per document, not once per scan (AxeBuilder evaluates its
 * 550 kB source at every call); it runs in the page (AxeBuilder opens a second, blank page per
 * scan and copies the page's partial results into it to finish there, which only frames from
 * other origins need); and only the violations are reported in full (`resultTypes`: the
 * thousands of passing nodes of a big page are not serialized; which rules fail is unchanged).
 */
async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if ((await page.evaluate('typeof window.axe')) !== 'object') await page.evaluate(AXE_SOURCE);
  if (page.frames().length > 1) throw new Error('axeViolations: the page has frames; scan it with AxeBuilder, which enters them');
  return page.evaluate<AxeViolation[]>(`window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`);
}

/** axe's serious and critical findings on the page as it is now, one line each (the tests expect none). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const settle = () =>
    // A notification or dialog fading in is measured at its final colours, not half-transparent
    // (axe read a toast's text at 3.4:1 mid-fade). Endless animations (loaders) are not waited for.
    page.evaluate(`Promise.race([
      Promise.all(document.getAnimations().filter((a) => a.effect?.getComputedTiming().endTime !== Infinity).map((a) => a.finished.catch(() => undefined))),
      new Promise((resolve) => setTimeout(resolve, 2000)),
    ])`);
  const serious = async () => {
    await settle();
    let violations: AxeViolation[];
    if (process.env.AXE_AB) {
      // Measuring only: the same state scanned both ways, times and findings logged.
      const t0 = performance.now();
      violations = await axeViolations(page);
      const t1 = performance.now();
      const before = (await new AxeBuilder({ page }).analyze()).violations;
      const t2 = performance.now();
      const ids = (vs: AxeViolation[]) => vs.map((v) => `${v.id}:${v.nodes.length}`).sort().join(',');
      fs.appendFileSync(process.env.AXE_AB, `${(t2 - t1).toFixed(0)}\t${(t1 - t0).toFixed(0)}\t${ids(before) === ids(violations) ? 'same' : `DIFFER ${ids(before)} | ${ids(violations)}`}\t${page.viewportSize()?.width}\t${page.url()}\n`);
    } else violations = await axeViolations(page);
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => `${n.target.join(' ')} ${n.failureSummary ?? ''} ${n.html.slice(0, 200)}`).join(', ')}`);
  };
  // A toast that closes by itself can start fading while axe reads it (seen at 1.22:1). What is
  // really wrong is still wrong a moment later, so a finding counts only when a second look,
  // once that fade has run, sees it too.
  const first = await serious();
  if (first.length === 0) return first;
  await page.waitForTimeout(400);
  return serious();
}

/**
 * Runs `action` (JavaScript, in the page) and measures with the page's own clock how long
 * until the selected row of the trace's span tree is another one (the jump drawn):
 * [ms, the span now selected], or [-1, ...] when nothing changed within 5 s.
 * The e2e suite checks where jumps land with it; `npm run bench` reports how long they take.
 */
export function timeSpanJump(page: Page, action: string): Promise<[number, string]> {
  return page.evaluate<[number, string]>(`new Promise((resolve) => {
    const selected = () => document.querySelector('[data-testid=span-tree] [role=treeitem][aria-selected=true]')?.getAttribute('data-span-id') ?? null;
    const before = selected();
    const t0 = performance.now();
    ${action};
    const check = () => {
      const now = selected();
      if (now !== null && now !== before) resolve([performance.now() - t0, now]);
      else if (performance.now() - t0 > 5000) resolve([-1, String(now)]);
      else requestAnimationFrame(check);
    };
    check();
  })`);
}

/** The actions of the span finder and the jump buttons, as `timeSpanJump` runs them. */
export const SPAN_JUMPS = {
  nextMatch: `document.querySelector('[data-testid=span-find]').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))`,
  previousMatch: `document.querySelector('[data-testid=span-find]').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', shiftKey: true, bubbles: true }))`,
  nextMatchKey: `document.querySelector('[data-testid=span-tree]').dispatchEvent(new KeyboardEvent('keydown', { key: 'n', bubbles: true }))`,
  previousMatchKey: `document.querySelector('[data-testid=span-tree]').dispatchEvent(new KeyboardEvent('keydown', { key: 'N', bubbles: true }))`,
  nextError: `document.querySelector('[data-testid=next-error]').click()`,
  slowest: `document.querySelector('[data-testid=slowest-span]').click()`,
} as const;

/**
 * Signs `user` in through the sign-in page and waits for the project's traces list, where the
 * app lands. `shown` runs once the form is drawn (the bench counts the page's scripts there).
 */
export async function signIn(page: Page, baseUrl: string, user: { email: string; password: string }, projectId: string, shown?: () => void): Promise<void> {
  await page.goto(`${baseUrl}/signin`);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  shown?.();
  await page.getByLabel('E-mail').fill(user.email);
  await page.locator('input[type=password]').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`**/p/${projectId}/traces`, { timeout: 30_000 });
}
