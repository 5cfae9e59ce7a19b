import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, signInContext, openInApp } from '../support/browser.ts';
import { sections } from '../support/sections.ts';
import { expectSaidAt } from '../support/field-errors.ts';
import { checkBothWidths } from '../support/both-widths.ts';
import { agentTrace } from '../support/sample-traces.ts';

/**
 * Human review in Debian's Chromium: score configs and a queue, traces added from the
 * traces list's selection ("Add to queue"), and a reviewer working through the queue with
 * the keyboard (Enter completes, s skips, k and j step back and forth); the scores then show
 * on the trace page. Desktop 1280 and phone 390.
 */
describe.runIf(hasChromium).each(appDatabaseKinds)('review queues in a real browser (%s)', (kind) => {
  let web: TestApp;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  let key = '';
  let queueId = '';
  const shots = kind === appDatabaseKinds[0];
  const ids = ['rv-trace-1', 'rv-trace-2', 'rv-trace-3'];

  beforeAll(async () => {
    web = await startApp(kind);
    browser = await workerBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(10_000);
    projectId = web.creds.project.id;
    key = web.creds.projectApiKey;
    const now = Date.now();
    for (const [i, id] of ids.entries()) {
      const res = await web.request('POST', '/api/collector', { authToken: key, body: agentTrace(id, now - i * 60_000, { question: `Question number ${i + 1}` }) });
      expect(res.status).toBe(200);
    }
    const call = (method: string, p: string, body?: unknown) => web.request(method, p, { authToken: key, body });
    const quality = (await call('POST', '/api/score-configs', { name: 'Quality', kind: 'numeric', min: 1, max: 5, description: 'How good is the answer' })).body.data.id;
    const tone = (await call('POST', '/api/score-configs', { name: 'Tone', kind: 'categorical', categories: ['friendly', 'neutral', 'rude'] })).body.data.id;
    await call('POST', '/api/score-configs', { name: 'Correct', kind: 'boolean' });
    const queue = await call('POST', '/api/queues', { name: 'Support answers', description: 'Weekly review of the parcel bot', scoreConfigIds: [quality, tone], memberUserIds: [web.creds.user.id] });
    expect(queue.status, queue.text).toBe(201);
    queueId = queue.body.data.id;
    expect((await call('POST', `/api/queues/${queueId}/items`, { items: [{ traceId: ids[2] }] })).body.added).toBe(1);
  }, 120_000);
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
  });

  const url = (p: string) => web.baseUrl + p;
  const checkPage = (name: string, ready: () => Promise<unknown>) => checkBothWidths(page, name, ready, shots);

  it('adds the ticked traces of the traces list to a queue', async () => {
    await signInContext(page.context(), web.baseUrl, web.creds.user);
    await page.goto(`${web.baseUrl}/p/${projectId}/traces`);
    await page.getByLabel(`Select the trace ${ids[0]}`).check();
    await page.getByLabel(`Select the trace ${ids[1]}`).check();
    await page.getByRole('button', { name: 'Add to queue' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add to a review queue' });
    await dialog.getByLabel('The 2 ticked').waitFor();
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog.getByRole('status').filter({ hasText: '2 added' }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('a queue deleted while the dialog is open is said at the queue picker', async () => {
    const call = (method: string, p: string, body?: unknown) => web.request(method, p, { authToken: key, body });
    const config = (await call('GET', '/api/score-configs')).body.data[0].id;
    const gone = (await call('POST', '/api/queues', { name: 'Last week', scoreConfigIds: [config] })).body.data.id;
    await page.reload();
    await page.getByLabel(`Select the trace ${ids[0]}`).check();
    await page.getByRole('button', { name: 'Add to queue' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add to a review queue' });
    await dialog.getByLabel('Queue').selectOption({ label: 'Last week' });
    // Deleted by someone else (another tab) before Add.
    expect((await call('DELETE', `/api/queues/${gone}`)).status).toBe(200);
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await expectSaidAt(page, dialog.getByLabel('Queue'), 'choose another');
    expect(await dialog.getByRole('alert').count()).toBe(0);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('the queues page lists the queue with its progress and the score configs', async () => {
    await (await sections(page)).getByRole('link', { name: 'Review' }).click();
    await page.waitForURL('**/queues');
    const row = page.locator('[data-queue="Support answers"]');
    await checkPage('review-queues', () => row.getByText('0 of 3 done').waitFor());
    await expect(page.getByRole('table', { name: 'Score configs' }).getByText('friendly, neutral, rude').count()).resolves.toBe(1);
  });

  it('a reviewer works through the queue with the keyboard: Enter completes, s skips, k and j step back and forth', async () => {
    await page.locator('[data-queue="Support answers"]').getByRole('link', { name: 'Review' }).click();
    await page.waitForURL(`**/queues/${queueId}/review`);
    const state = page.getByTestId('review-state');
    const traceId = page.getByTestId('review-trace-id');
    await state.filter({ hasText: 'To review' }).waitFor();
    await page.getByTestId('review-keys').filter({ hasText: 'Enter' }).waitFor();
    await checkPage('review-reviewer', () => page.getByRole('heading', { name: 'Support answers' }).waitFor());
    const first = await traceId.textContent();

    // Enter with a score missing says which.
    await page.getByLabel(/Quality/).fill('4');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'Give a score for Tone' }).waitFor();
    await page.getByText('friendly', { exact: true }).click();
    await page.keyboard.press('Enter');
    await page.getByTestId('review-progress').filter({ hasText: '1 of 3 done' }).waitFor();
    await expect.poll(() => traceId.textContent()).not.toBe(first);
    const second = await traceId.textContent();

    await page.keyboard.press('s');
    await page.getByTestId('review-progress').filter({ hasText: '2 of 3 done' }).waitFor();
    await expect.poll(() => traceId.textContent()).not.toBe(second);
    const third = await traceId.textContent();

    // Back: the skipped one, then the one scored (read-only, with its scores); forward again.
    await page.keyboard.press('k');
    await state.filter({ hasText: 'Skipped' }).waitFor();
    expect(await traceId.textContent()).toBe(second);
    await page.keyboard.press('k');
    await state.filter({ hasText: 'Done' }).waitFor();
    expect(await traceId.textContent()).toBe(first);
    await page.getByTestId('review-done-scores').filter({ hasText: 'friendly' }).waitFor();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await state.filter({ hasText: 'To review' }).waitFor();
    expect(await traceId.textContent()).toBe(third);

    await page.getByLabel(/Quality/).fill('2');
    await page.getByText('rude', { exact: true }).click();
    await page.getByLabel('Comment').fill('Curt answer');
    await page.keyboard.press('Control+Enter');
    await page.getByTestId('review-empty').waitFor();
    await page.getByTestId('review-progress').filter({ hasText: '3 of 3 done' }).waitFor();

    const queue = await web.request('GET', `/api/queues/${queueId}`, { authToken: key });
    expect(queue.body.data.progress).toMatchObject({ total: 3, completed: 2, skipped: 1, pending: 0 });
    expect(queue.body.data.progress.byReviewer).toEqual([{ reviewer: web.creds.user.id, email: web.creds.user.email, completed: 2, skipped: 1, claimed: 0 }]);
  });

  it("the scores show on the trace's annotations", async () => {
    await openInApp(page, url(`/p/${projectId}/traces/${ids[2]}`));
    await page.getByRole('tab', { name: 'Annotations' }).click();
    const scores = page.getByTestId('annotation-scores');
    await scores.first().waitFor();
    expect(await scores.count()).toBe(1);
    expect(await scores.textContent()).toMatch(/Quality: [24]/);
  });
});
