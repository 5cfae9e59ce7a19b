import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { SPAN_JUMPS, hasChromium, closeContexts, workerBrowser, timeSpanJump, signInContext } from '../support/browser.ts';
import { checkBothWidths } from '../support/both-widths.ts';
import { agentTrace } from '../support/sample-traces.ts';

/**
 * What a walk through evaluation by hand found on the trace page and the traces list, one
 * step each, in Debian's Chromium: "Slowest" walks from the slowest span whatever is selected,
 * the span search reads inputs, outputs and errors, a list sorted by a score keeps following
 * new traces, and a review without a thumb shows none.
 */
describe.runIf(hasChromium)('trace page and traces list defects in a real browser', () => {
  const kind = appDatabaseKinds[0];
  let web: TestApp;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  let key = '';
  let qualityId = '';
  const now = Date.now();
  const call = (method: string, p: string, body?: unknown) => web.request(method, p, { authToken: key, body });

  beforeAll(async () => {
    web = await startApp(kind);
    projectId = web.creds.project.id;
    key = web.creds.projectApiKey;
    // A root of 10 s that mostly waits on a 9 s model call: by time of its own the root is
    // only 4th (9 s call, 0.6 s tool, 0.25 s tool, then the root's 0.1 s), the tiny spans last.
    const t0 = now - 60_000;
    const at = (from: number, to: number) => ({ started_at: t0 + from, finished_at: t0 + to });
    const slow = {
      trace_id: 'slow-walk',
      spans: [
        { span_id: 'root', type: 'agent', name: 'courier agent', input: { type: 'text', value: 'Where is parcel 5521?' }, timestamps: at(0, 10_000) },
        {
          span_id: 'model-call',
          parent_id: 'root',
          type: 'llm',
          name: 'answer',
          model: 'gpt-4o-mini',
          input: { type: 'chat_messages', value: [{ role: 'system', content: 'You route parcels for Zephyrline.' }, { role: 'user', content: 'Where is parcel 5521?' }] },
          output: { type: 'chat_messages', value: [{ role: 'assistant', content: 'It waits in the Leipzig hub.' }] },
          timestamps: at(0, 9000),
        },
        { span_id: 'tool-a', parent_id: 'root', type: 'tool', name: 'lookup', error: { message: 'Quota exhausted upstream', stacktrace: [] }, timestamps: at(9000, 9600) },
        { span_id: 'tool-b', parent_id: 'root', type: 'tool', name: 'notify', timestamps: at(9600, 9900) },
        ...Array.from({ length: 5 }, (_, i) => ({ span_id: `tiny-${i}`, parent_id: 'tool-b', type: 'tool', name: `ping ${i}`, timestamps: at(9600 + i * 10, 9610 + i * 10) })),
      ],
    };
    expect((await call('POST', '/api/collector', slow)).status).toBe(200);
    for (const [i, id] of ['scored', 'reviewed', 'plain'].entries()) expect((await call('POST', '/api/collector', agentTrace(id, now - i * 30_000))).status).toBe(200);
    const quality = await call('POST', '/api/score-configs', { name: 'Quality', kind: 'numeric', min: 1, max: 5 });
    expect(quality.status, quality.text).toBe(201);
    qualityId = quality.body.data.id;
    const scored = await call('POST', '/api/annotations/trace/scored', { comment: 'fine', isThumbsUp: true, scores: [{ configId: qualityId, value: 4 }] });
    expect(scored.status, scored.text).toBe(200);

    browser = await workerBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(15_000);
    await signInContext(page.context(), web.baseUrl, web.creds.user);
  }, 180_000);
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
  });

  const project = (p: string) => `${web.baseUrl}/p/${projectId}${p}`;
  const poll = <T,>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });
  const slowest = () => page.getByTestId('slowest-span');
  async function jump(action: string): Promise<string> {
    const [ms, span] = await timeSpanJump(page, action);
    expect(ms, `no other span selected (still ${span})`).toBeGreaterThanOrEqual(0);
    return span;
  }

  it('10. "Slowest" starts at the slowest span, not at the selected root\'s rank, and walks down from there', async () => {
    await page.goto(project('/traces/slow-walk'));
    await page.locator('[data-testid=span-tree] [role=treeitem][aria-selected=true][data-span-id=root]').waitFor();
    // The root is selected, 4th slowest: the button says no rank until it is pressed.
    expect((await slowest().textContent())?.trim()).toBe('Slowest');
    expect(await jump(SPAN_JUMPS.slowest)).toBe('model-call');
    await poll(() => slowest().textContent()).toContain('#1');
    expect(await jump(SPAN_JUMPS.slowest)).toBe('tool-a');
    expect(await jump(SPAN_JUMPS.slowest)).toBe('tool-b');
    expect(await jump(SPAN_JUMPS.slowest)).toBe('root');
    await poll(() => slowest().textContent()).toContain('#4');
    // Choosing a span by hand starts the walk again from the slowest.
    await page.locator('[data-testid=span-tree] [data-span-id=tiny-2]').click();
    await poll(() => slowest().textContent()).toBe('Slowest');
    expect(await jump(SPAN_JUMPS.slowest)).toBe('model-call');
  });

  it("11. the span search finds text in a span's input (any message), output and error message", async () => {
    const find = page.getByTestId('span-find');
    const count = page.getByTestId('span-find-count');
    const found = async (text: string, expected: string) => {
      await find.fill(text);
      await poll(() => count.textContent()).toMatch(/^(1 of )?1 found$/);
      await find.press('Enter');
      await poll(() => page.locator('[data-testid=span-tree] [role=treeitem][aria-selected=true]').getAttribute('data-span-id')).toBe(expected);
    };
    await found('zephyrline', 'model-call'); // the system message
    await found('quota exhausted', 'tool-a'); // the error message
    await found('leipzig hub', 'model-call'); // the output
    await checkBothWidths(page, 'trace-find-error', () => count.filter({ hasText: '1 of 1 found' }).waitFor(), true);
    await find.fill('');
  });

  it('14. the traces list sorted by a review score keeps following new traces (no 400 from the live check)', async () => {
    const polls: number[] = [];
    const onResponse = (res: { url(): string; status(): number }) => {
      if (res.url().endsWith('/api/trace/search/new')) polls.push(res.status());
    };
    page.on('response', onResponse);
    try {
      await page.goto(project(`/traces?sort=${encodeURIComponent(`score:${qualityId}`)}&cols=${encodeURIComponent(`time,input,score:${qualityId}`)}`));
      await page.locator('[data-testid=traces-grid] [role=row][data-trace-id]').first().waitFor();
      // The first poll, then at least one more 1.5 s later.
      await poll(() => polls.length).toBeGreaterThanOrEqual(2);
      expect(polls.filter((s) => s !== 200), `statuses: ${polls.join(', ')}`).toEqual([]);
      await poll(() => page.getByTestId('traces-live').getAttribute('data-live')).toBe('on');
      // The scored trace comes first, and a new trace is noticed (not inserted: the list is not newest first).
      expect(await page.locator('[data-testid=traces-grid] [role=row][data-trace-id]').first().getAttribute('data-trace-id')).toBe('scored');
      expect((await call('POST', '/api/collector', agentTrace('arrived-late', Date.now()))).status).toBe(200);
      await page.getByRole('button', { name: /1 new — show/ }).waitFor({ timeout: 20_000 });
      expect(polls.filter((s) => s !== 200)).toEqual([]);
    } finally {
      page.off('response', onResponse);
    }
  });

  it('15. a review completed without a thumb shows no thumb in the Notes column; a thumbs-down review shows one', async () => {
    const queue = await call('POST', '/api/queues', { name: 'Parcel answers', scoreConfigIds: [qualityId] });
    expect(queue.status, queue.text).toBe(201);
    const queueId = queue.body.data.id;
    expect((await call('POST', `/api/queues/${queueId}/items`, { items: [{ traceId: 'reviewed' }, { traceId: 'plain' }] })).body.added).toBe(2);
    const items = (await call('GET', `/api/queues/${queueId}/items`)).body.data as { id: string; traceId: string }[];
    const complete = (traceId: string, body: object) => call('POST', `/api/queues/${queueId}/items/${items.find((i) => i.traceId === traceId)!.id}/complete`, body);
    // Scored worst, no thumb: as the review page completes an item.
    expect((await complete('reviewed', { scores: [{ configId: qualityId, value: 1 }], comment: 'rude' })).status).toBe(200);
    expect((await complete('plain', { scores: [{ configId: qualityId, value: 2 }], isThumbsUp: false })).status).toBe(200);

    await page.goto(project(`/traces?cols=${encodeURIComponent('time,input,notes')}`));
    const row = (id: string) => page.locator(`[data-testid=traces-grid] [role=row][data-trace-id="${id}"]`);
    await row('plain').locator('[aria-label="thumbs down"]').waitFor();
    expect(await row('reviewed').locator('[aria-label="thumbs up"], [aria-label="thumbs down"]').count()).toBe(0);
    expect(await row('plain').locator('[aria-label="thumbs up"]').count()).toBe(0);
    // The trace page lists the review with its score and without a thumb.
    await page.goto(project('/traces/reviewed'));
    await page.getByRole('tab', { name: 'Annotations' }).click();
    const annotation = page.locator('[data-annotation-id]').filter({ hasText: 'rude' });
    await annotation.waitFor();
    expect(await annotation.locator('[aria-label="thumbs up"], [aria-label="thumbs down"]').count()).toBe(0);
  });
});
