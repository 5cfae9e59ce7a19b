import { SPAN_JUMPS, hasChromium, timeSpanJump } from '../test/support/browser.ts';
import { bigTrace } from '../test/support/sample-traces.ts';
import { median, type BenchServer } from './lib.ts';
import { signedInPage } from './web.ts';

/**
 * Finding things in a 10,000-span trace, in Debian's Chromium: each jump (next match, next
 * error, slowest span) timed in the page from the action until the tree shows the new
 * selection; the finder from typing to its count shown, for names (matched in the page) and
 * for inputs, outputs and error messages (matched by the server), and the server's search
 * alone; folding to one level and back.
 * The trace is the e2e suite's big trace (a root, steps of ten, an error every 997 spans).
 */
export async function benchSpanJumps(s: BenchServer, opts: { spans: number; jumps: number }) {
  if (!hasChromium) return null;
  const trace = bigTrace('bench-big', Date.now() - 5000, opts.spans);
  for (let i = 0; i < trace.spans.length; i += 2500) {
    const res = await fetch(`${s.baseUrl}/api/collector`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-token': s.creds.projectApiKey },
      body: JSON.stringify({ ...trace, spans: trace.spans.slice(i, i + 2500) }),
    });
    if (res.status !== 200) throw new Error(`collector answered ${res.status}: ${await res.text()}`);
  }
  const { browser, page } = await signedInPage(s);
  try {
    await page.goto(`${s.baseUrl}/p/${s.creds.project.id}/traces/bench-big`);
    const tree = page.getByTestId('span-tree');
    await tree.locator('[role=treeitem]').first().waitFor();
    const jumps: Record<string, number[]> = {};
    const jump = async (what: string, action: string) => {
      const [ms, span] = await timeSpanJump(page, action);
      if (ms < 0) throw new Error(`${what} selected no other span (still ${span})`);
      (jumps[what] ??= []).push(ms);
    };
    const count = page.getByTestId('span-find-count');
    // Names, types and models are matched in the page at once ("1,000 found…"); attribute
    // values by the server, 250 ms after the last key ("1,000 found").
    const findLocal: number[] = [];
    const findAll: number[] = [];
    for (const needle of ['tool 7', 'gpt-4o', 'chain', 'tool 3']) {
      await page.getByTestId('span-find').fill('');
      const t0 = performance.now();
      await page.getByTestId('span-find').fill(needle);
      await page.locator('[data-testid=span-find-count]', { hasText: /^[\d,]+\+? found/ }).waitFor();
      findLocal.push(performance.now() - t0);
      await page.locator('[data-testid=span-find-count]', { hasText: /^[\d,]+\+? found$/ }).waitFor();
      findAll.push(performance.now() - t0);
    }
    if (!/found/.test((await count.textContent()) ?? '')) throw new Error('the finder found nothing');
    for (let i = 0; i < opts.jumps; i++) await jump('next match (Enter)', SPAN_JUMPS.nextMatch);
    for (let i = 0; i < opts.jumps; i++) await jump('previous match (Shift+Enter)', SPAN_JUMPS.previousMatch);
    // Text only inputs, outputs and errors hold: the LLM calls' questions and answers (1,000
    // spans each), the failed tools' messages (10).
    const findPayloads: number[] = [];
    for (const needle of ['what next', 'call tool for item 4', 'tool failed on item', 'what next?']) {
      await page.getByTestId('span-find').fill('');
      const t0 = performance.now();
      await page.getByTestId('span-find').fill(needle);
      await page.locator('[data-testid=span-find-count]', { hasText: /^[1-9][\d,]*\+? found$/ }).waitFor();
      findPayloads.push(performance.now() - t0);
    }
    for (let i = 0; i < opts.jumps; i++) await jump('next match in inputs, outputs and errors (Enter)', SPAN_JUMPS.nextMatch);
    for (let i = 0; i < opts.jumps; i++) await jump('previous match in inputs, outputs and errors (Shift+Enter)', SPAN_JUMPS.previousMatch);
    // The server's search alone (GET /api/trace/{id}/span-search), timed from the bench process.
    const searchRoute: number[] = [];
    for (const needle of ['what next', 'tool failed on item', 'no such text anywhere']) {
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const res = await fetch(`${s.baseUrl}/api/trace/bench-big/span-search?q=${encodeURIComponent(needle)}`, { headers: { 'x-auth-token': s.creds.projectApiKey } });
        if (res.status !== 200) throw new Error(`span-search answered ${res.status}: ${await res.text()}`);
        await res.json();
        searchRoute.push(performance.now() - t0);
      }
    }
    for (let i = 0; i < opts.jumps; i++) await jump('next error', SPAN_JUMPS.nextError);
    for (let i = 0; i < opts.jumps; i++) await jump('slowest span', SPAN_JUMPS.slowest);
    const levels = page.getByTestId('span-levels');
    const setsize = (n: number) => tree.locator(`[role=treeitem][aria-setsize="${n}"]`).first().waitFor();
    const fold: number[] = [];
    const unfold: number[] = [];
    for (let i = 0; i < 5; i++) {
      let t0 = performance.now();
      await levels.selectOption('1');
      await setsize(1);
      fold.push(performance.now() - t0);
      t0 = performance.now();
      await levels.selectOption('all');
      await setsize(opts.spans);
      unfold.push(performance.now() - t0);
    }
    const results: Record<string, { p50: number; max: number; n: number }> = {};
    for (const [what, ms] of Object.entries(jumps)) results[what] = { p50: median(ms), max: Math.max(...ms), n: ms.length };
    // These two are timed from the bench process (a browser round trip included).
    results['find: typed to names, types and models matched'] = { p50: median(findLocal), max: Math.max(...findLocal), n: findLocal.length };
    results['find: typed to attribute values matched (server, after 250 ms)'] = { p50: median(findAll), max: Math.max(...findAll), n: findAll.length };
    results['find: typed to inputs, outputs and errors matched (server, after 250 ms)'] = { p50: median(findPayloads), max: Math.max(...findPayloads), n: findPayloads.length };
    results['find: the span-search route alone (names to attributes, inputs, outputs, errors)'] = { p50: median(searchRoute), max: Math.max(...searchRoute), n: searchRoute.length };
    results['fold to 1 level'] = { p50: median(fold), max: Math.max(...fold), n: fold.length };
    results['expand all'] = { p50: median(unfold), max: Math.max(...unfold), n: unfold.length };
    return { spans: opts.spans, results };
  } finally {
    await browser.close();
  }
}
