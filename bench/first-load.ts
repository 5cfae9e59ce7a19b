import type { Browser } from 'playwright-core';
import { hasChromium, launchBrowser } from '../test/support/browser.ts';
import { copyEarlier } from './analytics.ts';
import { median, pool, type BenchServer } from './lib.ts';
import { otlpRequest } from './otlp-payloads.ts';

/** Chromium's network emulation for the "slow network" loads: 10 Mbit/s each way, 40 ms round trip. */
export const SLOW_NETWORK = { latencyMs: 40, mbitPerSecond: 10 } as const;

/**
 * Fills the bench server's project with `traces` traces cheaply: a fiftieth (5 spans each) goes
 * through OTLP ingest, then 49 copies of those trace rows, each earlier, under other ids
 * (only the traces table: the list reads nothing else, and copying spans would triple the setup).
 */
export async function seedTraceList(s: BenchServer, traces: number) {
  const copies = 49;
  const ingested = Math.ceil(traces / (copies + 1));
  const spansPerTrace = 5;
  const spansPerRequest = 100;
  const spacingMs = 1000;
  const start = Date.now() - 60_000 - ingested * spacingMs;
  const requests = Math.ceil((ingested * spansPerTrace) / spansPerRequest);
  await pool(
    Array.from({ length: requests }, (_, i) => async () => {
      const res = await fetch(`${s.baseUrl}/api/otel/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${s.creds.projectApiKey}` },
        body: otlpRequest(i * (spansPerRequest / spansPerTrace), spansPerRequest, spansPerTrace, start, 7, 0, spacingMs),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
    }),
    2,
  );
  await copyEarlier(s, copies, ingested * spacingMs, ['traces']);
  await s.app.services.traces.refreshStatistics();
}

/** The session cookie of the bench server's first user, signed in through the API. */
async function sessionCookie(s: BenchServer) {
  const res = await fetch(`${s.baseUrl}/api/auth/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: s.creds.user.email, password: s.creds.user.password }),
  });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}`);
  const [pair] = res.headers.get('set-cookie')!.split(';');
  const at = pair.indexOf('=');
  return { name: pair.slice(0, at), value: pair.slice(at + 1), url: s.baseUrl };
}

export interface FirstLoad {
  /** Navigation start to the first paint with content (text), in the page's clock; null when Chromium reported none. */
  firstContentfulPaint: number | null;
  /** Navigation start to the first trace row in the list. */
  rowsDrawn: number;
  /** The app's JavaScript files fetched. */
  scripts: number;
  /**
   * The longest chain of the page's requests (scripts, styles, API calls) in which each one
   * was asked for only after the one before it had arrived: the waterfall's depth.
   */
  chain: string[];
  /** Every request of the load: path, asked for and arrived (ms from navigation start). */
  requests: [string, number, number][];
}

/** Notes when the first trace row enters the page (before the page's own scripts run, so nothing is missed). */
const WATCH_ROWS = `new MutationObserver((_, observer) => {
  if (!document.querySelector('[role=row][data-trace-id]')) return;
  window.__rowsDrawn = performance.now();
  observer.disconnect();
}).observe(document, { childList: true, subtree: true });`;

/**
 * What a load's timings are, read in the page once its first row is drawn (JavaScript text:
 * the bench's own transpiler would add helpers the page does not have). A request's depth is
 * one more than the deepest request that had arrived before it was asked for.
 */
const TIMINGS_IN_PAGE = `(() => {
  const rowsDrawn = window.__rowsDrawn;
  const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null;
  const resources = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
  const depth = new Map();
  for (const r of [...resources].sort((a, b) => a.startTime - b.startTime)) {
    let best = { n: 1, via: null };
    for (const [q, d] of depth) if (q.responseEnd <= r.startTime && d.n + 1 > best.n) best = { n: d.n + 1, via: q };
    depth.set(r, best);
  }
  let last = [...depth.entries()].reduce((a, b) => (b[1].n > a[1].n ? b : a))[0];
  const chain = [];
  while (last) {
    chain.unshift(new URL(last.name).pathname + ' (' + Math.round(last.startTime) + '-' + Math.round(last.responseEnd) + ' ms)');
    last = depth.get(last).via;
  }
  const path = (r) => new URL(r.name).pathname;
  const scripts = resources.filter((r) => path(r).startsWith('/assets/') && path(r).endsWith('.js')).length;
  const requests = resources.map((r) => [path(r), Math.round(r.startTime), Math.round(r.responseEnd)]);
  return { firstContentfulPaint: fcp, rowsDrawn, scripts, chain, requests };
})()`;

/**
 * One load of the traces list in a fresh browser context (an empty cache, as a new profile),
 * already signed in: from navigation to its first row drawn.
 */
async function loadOnce(browser: Browser, url: string, cookie: Awaited<ReturnType<typeof sessionCookie>>, network: typeof SLOW_NETWORK | null): Promise<FirstLoad> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  try {
    await context.addCookies([cookie]);
    await context.addInitScript(WATCH_ROWS);
    const page = await context.newPage();
    if (network) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      const bytesPerSecond = (network.mbitPerSecond * 1_000_000) / 8;
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: network.latencyMs, downloadThroughput: bytesPerSecond, uploadThroughput: bytesPerSecond });
    }
    await page.goto(url, { waitUntil: 'commit' });
    await page.locator('[role=row][data-trace-id]').first().waitFor({ timeout: 90_000 });
    return await page.evaluate<FirstLoad>(TIMINGS_IN_PAGE);
  } finally {
    await context.close();
  }
}

/**
 * The first load of the traces list (`traces` traces, seeded by `seedTraceList`) in Chromium,
 * each load in a fresh context: on loopback and through the emulated slow network, `runs` of
 * each, medians.
 */
export async function benchFirstLoad(s: BenchServer, runs = 5) {
  if (!hasChromium) return null;
  const cookie = await sessionCookie(s);
  const url = `${s.baseUrl}/p/${s.creds.project.id}/traces`;
  const browser = await launchBrowser();
  try {
    // One load not counted: the server's first search and the browser's own start.
    await loadOnce(browser, url, cookie, null);
    const summary = async (network: typeof SLOW_NETWORK | null) => {
      const loads: FirstLoad[] = [];
      for (let i = 0; i < runs; i++) loads.push(await loadOnce(browser, url, cookie, network));
      const byRows = [...loads].sort((a, b) => a.rowsDrawn - b.rowsDrawn);
      return {
        rowsDrawn: median(loads.map((l) => l.rowsDrawn)),
        firstContentfulPaint: median(loads.map((l) => l.firstContentfulPaint ?? NaN)),
        scripts: median(loads.map((l) => l.scripts)),
        chainDepth: median(loads.map((l) => l.chain.length)),
        // The median load's chain, to read where the time goes.
        medianChain: byRows[Math.floor(byRows.length / 2)].chain,
        medianRequests: byRows[Math.floor(byRows.length / 2)].requests,
        runs: loads.map((l) => Math.round(l.rowsDrawn)),
      };
    };
    return { loopback: await summary(null), slow: await summary(SLOW_NETWORK) };
  } finally {
    await browser.close();
  }
}
