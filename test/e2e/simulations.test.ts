import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { SCREENSHOT_DIR, hasChromium, launchBrowser, signIn } from '../support/browser.ts';
import { checkBothWidths } from '../support/both-widths.ts';

/**
 * The simulations pages in Debian's Chromium, over runs posted as LangWatch's Scenario package
 * posts them: the sets with their pass rates, a set's batches, a batch's runs, and one run
 * replayed as its conversation with the verdict per criterion; a running run shows its new
 * messages without a reload. Desktop 1280 and phone 390.
 */
describe.runIf(hasChromium).each(appDatabaseKinds)('simulations in a real browser (%s)', (kind) => {
  let web: TestApp;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  const shots = kind === appDatabaseKinds[0];
  const T0 = Date.now() - 10 * 60_000;
  const ids = (run: string) => ({ batchRunId: 'nightly-2026-11-29', scenarioId: run, scenarioRunId: `run-${run}`, scenarioSetId: 'support-agent' });
  const post = async (body: unknown) => {
    const res = await web.request('POST', '/api/scenario-events', { authToken: web.creds.projectApiKey, body });
    expect(res.status, res.text).toBe(201);
  };
  const said = (...texts: string[]) => texts.map((content, i) => ({ id: `m${i}`, role: i % 2 ? 'assistant' : 'user', content }));

  async function report(run: string, name: string, messages: unknown[], verdict?: 'success' | 'failure') {
    await post({ type: 'SCENARIO_RUN_STARTED', timestamp: T0, ...ids(run), metadata: { name, description: 'A customer writes to the support agent' } });
    await post({ type: 'SCENARIO_MESSAGE_SNAPSHOT', timestamp: T0 + 1_000, ...ids(run), messages });
    if (verdict) {
      const criteria = ['The agent offers a refund', 'The agent stays polite'];
      await post({
        type: 'SCENARIO_RUN_FINISHED',
        timestamp: T0 + 4_200,
        ...ids(run),
        status: verdict === 'success' ? 'SUCCESS' : 'FAILED',
        results: {
          verdict,
          reasoning: verdict === 'success' ? 'The agent offered a refund within two turns and kept a friendly tone.' : 'The agent refused the refund and blamed the customer.',
          metCriteria: verdict === 'success' ? criteria : [criteria[1]],
          unmetCriteria: verdict === 'success' ? [] : [criteria[0]],
        },
      });
    }
  }

  beforeAll(async () => {
    web = await startApp(kind);
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(10_000);
    projectId = web.creds.project.id;
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await report('refund', 'Refund for a broken kettle', said('My kettle arrived broken, I want my money back.', 'I am sorry! I have refunded the full amount to your card.'), 'success');
    await report(
      'angry',
      'Angry customer, late parcel',
      [
        ...said('Where is my parcel? It is a week late!'),
        { id: 'm1', role: 'assistant', content: '', toolCalls: [{ id: 'call-1', type: 'function', function: { name: 'track_parcel', arguments: '{"order":"A-1042"}' } }] },
        { id: 'm2', role: 'tool', toolCallId: 'call-1', content: '{"status":"delayed"}' },
        { id: 'm3', role: 'assistant', content: 'It is delayed. You should have ordered earlier.' },
      ],
      'failure',
    );
    await report('running', 'Address change', said('Can I change my delivery address?'));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  const url = (p: string) => web.baseUrl + p;
  const checkPage = (name: string, ready: () => Promise<unknown>) => checkBothWidths(page, name, ready, shots);

  it('lists the scenario sets with their pass rates, then a set’s batches', async () => {
    await signIn(page, web.baseUrl, web.creds.user, projectId);
    await page.getByRole('link', { name: 'Simulations' }).click();
    const set = page.locator('[data-set="support-agent"]');
    await checkPage('simulations-sets', () => set.waitFor());
    await expect.poll(() => set.textContent()).toContain('50 %');
    expect(await set.textContent()).toContain('1 passed · 1 failed · 1 running');

    await set.getByRole('link', { name: 'support-agent' }).click();
    const batch = page.locator('[data-batch="nightly-2026-11-29"]');
    await checkPage('simulations-batches', () => batch.waitFor());
    expect(await batch.textContent()).toContain('running');
  });

  it('a batch’s runs, each with its result and criteria; a run replayed with the verdict per criterion', async () => {
    await page.locator('[data-batch="nightly-2026-11-29"]').getByRole('link').click();
    const angry = page.locator('[data-run="Angry customer, late parcel"]');
    await checkPage('simulations-runs', () => angry.waitFor());
    expect(await angry.textContent()).toContain('failed');
    expect(await angry.textContent()).toContain('1 of 2');
    expect(await page.locator('[data-run="Refund for a broken kettle"]').textContent()).toContain('passed');

    await angry.getByRole('link', { name: 'Angry customer, late parcel' }).click();
    const verdict = page.getByRole('region', { name: "The judge's verdict" });
    await checkPage('simulation-run', () => verdict.waitFor());
    expect(await verdict.textContent()).toContain('The agent refused the refund and blamed the customer.');
    await expect.poll(() => verdict.getByRole('listitem').allTextContents()).toEqual([' The agent stays polite', ' The agent offers a refund']);
    const messages = page.getByTestId('simulation-messages').locator('li');
    expect(await messages.count()).toBe(4);
    expect(await messages.nth(1).textContent()).toContain('track_parcel');
    expect(await messages.nth(2).getAttribute('data-role')).toBe('tool');
  });

  it('a running run shows new messages and its verdict without a reload', async () => {
    await page.goto(url(`/p/${projectId}/simulations/runs/run-running`));
    const messages = page.getByTestId('simulation-messages').locator('li');
    await expect.poll(() => messages.count()).toBe(1);
    await post({ type: 'SCENARIO_MESSAGE_SNAPSHOT', timestamp: T0 + 2_000, ...ids('running'), messages: said('Can I change my delivery address?', 'Yes: tell me the new one.') });
    await post({
      type: 'SCENARIO_RUN_FINISHED',
      timestamp: T0 + 3_000,
      ...ids('running'),
      status: 'SUCCESS',
      results: { verdict: 'success', reasoning: 'Helpful.', metCriteria: ['The agent helps'], unmetCriteria: [] },
    });
    await expect.poll(() => messages.count(), { timeout: 10_000 }).toBe(2);
    await page.getByRole('region', { name: "The judge's verdict" }).waitFor();
  });
});
