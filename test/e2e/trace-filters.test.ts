import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, signInContext, openInApp } from '../support/browser.ts';
import { MONITOR_FILTER_KEYS, TRACE_FILTER_KEYS, TRACE_FILTERS, toSearchFilters, type TraceFilterKey } from '../../src/ui/lib/trace-filters.ts';

/**
 * The web app's table of trace filters (src/ui/lib/trace-filters.ts) drives the traces list:
 * every filter in it is read from the URL into the search the list sends, shown as a chip,
 * counted on the Filters button, edited in the Filters popover (but topic, chosen on the Topics
 * page) and cleared by "Clear filters"; the monitor form edits the filters a monitor keeps.
 */
describe.runIf(hasChromium)('the table of trace filters drives the list', () => {
  const kind = appDatabaseKinds[0];
  let web: TestApp;
  let browser: Browser;
  let page: Page;
  // A URL value for every filter: a filter added to the table without one here fails the first test.
  const SAMPLES: Record<TraceFilterKey, string> = {
    user: 'u-1,u-2',
    thread: 'th-1',
    customer: 'acme',
    labels: 'beta',
    model: 'gpt-4o-mini',
    type: 'tool',
    error: 'yes',
    annotated: 'no',
    eval: 'failed',
    evaluator: 'pii/pii_detection',
    meta: 'plan=pro',
    score: 'cfg_x:1..3',
    topic: 'topic_1',
  };

  beforeAll(async () => {
    web = await startApp(kind);
    browser = await workerBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(20_000);
    page = await context.newPage();
    await signInContext(page.context(), web.baseUrl, web.creds.user);
  });
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
  });

  it('reads every filter of the table from the URL into the search, a chip each, and counts them', async () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...TRACE_FILTER_KEYS].sort());
    const searches: unknown[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/trace/search') && r.method() === 'POST') searches.push(r.postDataJSON());
    });
    await page.goto(`${web.baseUrl}/p/${web.creds.project.id}/traces?${new URLSearchParams(SAMPLES).toString()}`);
    // The list's searches before this page (the unfiltered list it was on) carry no filter.
    const filtered = () => (searches as { filters?: Record<string, unknown> }[]).find((s) => s.filters);
    await expect.poll(filtered).toBeDefined();
    const sent = filtered()!.filters!;
    expect(sent).toEqual(toSearchFilters(SAMPLES));
    // Each filter reaches the server under its own key.
    for (const key of TRACE_FILTER_KEYS) expect(sent, key).toHaveProperty(TRACE_FILTERS[key].serverKey);
    const chips = page.getByLabel('Active filters');
    for (const key of TRACE_FILTER_KEYS) await chips.getByLabel(`Remove filter ${TRACE_FILTERS[key].label}`).waitFor();
    await page.locator('button.list-filters').getByLabel(`${TRACE_FILTER_KEYS.length} active`).waitFor();
  });

  it('edits every filter but topic in the Filters popover, and "Clear filters" clears them all', async () => {
    await page.locator('button.list-filters').click();
    const dialog = page.locator('.mantine-Popover-dropdown');
    // The popover opens with a transition: counting before it is drawn would find nothing.
    await dialog.locator('[data-filter]').first().waitFor();
    for (const key of TRACE_FILTER_KEYS.filter((k) => k !== 'topic' && k !== 'score')) {
      expect(await dialog.locator(`[data-filter="${key}"]`).count(), key).toBe(1);
    }
    // The score editor shows once the project has a score config.
    expect(await dialog.locator('[data-filter="topic"]').count()).toBe(0);
    await dialog.getByLabel('Thread id').fill('th-2');
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/thread=th-2/);
    await page.getByText('Thread: th-2').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.size).toBe(0);
  });

  it('the monitor form edits the filters a monitor keeps, thread among them', async () => {
    expect(MONITOR_FILTER_KEYS).toEqual(['user', 'thread', 'customer', 'labels', 'model', 'type', 'error', 'meta']);
    await openInApp(page, `${web.baseUrl}/p/${web.creds.project.id}/monitors/new`);
    for (const key of MONITOR_FILTER_KEYS) await page.locator(`[data-filter="${key}"]`).waitFor();
    await page.getByLabel('Thread id').fill('th-9');
    expect(await page.getByLabel('Thread id').inputValue()).toBe('th-9');
  });
});
