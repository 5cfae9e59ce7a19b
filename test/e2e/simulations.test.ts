import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, openSignedIn, openInApp } from '../support/browser.ts';
import { checkBothWidths } from '../support/both-widths.ts';
import { startFakeServer, type FakeServer } from '../evaluators/fake-servers.ts';
import { scriptedModel, startAgent, type LoopbackAgent } from '../simulations/loopback-agent.ts';

/**
 * The simulations pages in Debian's Chromium, over runs posted as LangWatch's Scenario package
 * posts them: the sets with their pass rates, a set's batches, a batch's runs, and one run
 * replayed as its conversation with the verdict per criterion; a running run shows its new
 * messages without a reload. Scenarios defined in the app (a refused field shown next to it, an
 * agent's headers shown masked), a set run from its button against a loopback HTTP agent with the
 * loopback OpenAI-compatible server as user and judge, and two batches compared. Desktop 1280 and
 * phone 390.
 */
describe.runIf(hasChromium).each(appDatabaseKinds)('simulations in a real browser (%s)', (kind) => {
  let web: TestApp;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  let openai: FakeServer;
  let agent: LoopbackAgent;
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
    openai = await startFakeServer();
    openai.fallback = scriptedModel;
    agent = await startAgent();
    web = await startApp(kind, { env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${openai.url}/v1` } });
    browser = await workerBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(10_000);
    projectId = web.creds.project.id;
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
    await openSignedIn(page, web.baseUrl, web.creds.user, `/p/${projectId}/traces`);
  }, 120_000);
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
    await openai?.close();
    await agent?.close();
  });

  const url = (p: string) => web.baseUrl + p;
  const checkPage = (name: string, ready: () => Promise<unknown>) => checkBothWidths(page, name, ready, shots);

  it('lists the scenario sets with their pass rates, then a set’s batches', async () => {
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
    await openInApp(page, url(`/p/${projectId}/simulations/runs/run-running`));
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

  it('defines scenarios in the app: a refused field is shown next to it, headers come back masked; edits and deletes them', async () => {
    await openInApp(page, url(`/p/${projectId}/simulations`));
    await page.getByRole('link', { name: 'Scenarios' }).click();
    await page.getByRole('button', { name: 'New scenario' }).click();
    const form = page.getByRole('form', { name: 'New scenario' });
    await form.getByLabel('Name').fill('case 1');
    await form.getByLabel('Scenario set').fill('refunds');
    await form.getByLabel('Persona').fill('A polite customer whose parcel arrived broken');
    await form.getByLabel('Goal').fill('Get a refund for order 42');
    await form.getByLabel('Criteria').fill('The agent approves the refund\nThe agent stays polite');
    await form.getByLabel('Maximum turns').fill('60');
    await form.getByLabel('URL').fill(`${agent.url}/versioned`);
    await form.getByLabel('Headers').fill('authorization: Bearer e2e-secret-0123456789');
    await form.getByRole('button', { name: 'Create scenario' }).click();
    // The server's refusal of body.maxTurns, next to its field, and nothing saved.
    const turns = form.getByLabel('Maximum turns');
    await expect.poll(() => turns.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await turns.getAttribute('aria-describedby')) ?? '';
    expect(await page.locator(describedBy.split(' ').filter(Boolean).map((id) => `#${id}`).join(',')).allTextContents()).toContain('At most 50.');
    await checkPage('simulation-scenario-form', () => form.waitFor());
    await turns.fill('2');
    await form.getByRole('button', { name: 'Create scenario' }).click();
    const set = page.locator('[data-scenario-set="refunds"]');
    await set.locator('[data-scenario="case 1"]').waitFor();

    // A second scenario, and a third to delete.
    for (const name of ['case 2', 'case 99']) {
      await page.getByRole('button', { name: 'New scenario' }).click();
      const next = page.getByRole('form', { name: 'New scenario' });
      await next.getByLabel('Name').fill(name);
      await next.getByLabel('Scenario set').fill('refunds');
      await next.getByLabel('Persona').fill('A customer');
      await next.getByLabel('Goal').fill('A refund');
      await next.getByLabel('Criteria').fill('The agent approves the refund');
      await next.getByLabel('Maximum turns').fill('2');
      await next.getByLabel('URL').fill(`${agent.url}/versioned`);
      await next.getByRole('button', { name: 'Create scenario' }).click();
      await set.locator(`[data-scenario="${name}"]`).waitFor();
    }
    page.once('dialog', (d) => void d.accept());
    await set.getByRole('button', { name: 'Delete case 99' }).click();
    await expect.poll(() => set.locator('[data-scenario="case 99"]').count()).toBe(0);

    // Edited: the headers show masked, and saved so they keep the stored secret.
    await set.getByRole('button', { name: 'Edit case 1' }).click();
    const edit = page.getByRole('form', { name: 'Edit case 1' });
    expect(await edit.getByLabel('Headers').inputValue()).toBe('authorization: ****6789');
    expect(await page.content()).not.toContain('e2e-secret');
    await edit.getByLabel('Description').fill('The first case');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    await checkPage('simulation-scenarios', () => set.locator('[data-scenario="case 1"]').waitFor());
    const stored = await web.request('GET', '/api/simulations/scenarios?scenarioSetId=refunds', { authToken: web.creds.projectApiKey });
    expect(stored.body.scenarios.map((s: { name: string; description: string }) => [s.name, s.description])).toEqual([
      ['case 1', 'The first case'],
      ['case 2', ''],
    ]);
  });

  it('runs the set from its button twice (two agent versions) and compares the batches', async () => {
    const set = page.locator('[data-scenario-set="refunds"]');
    const runSet = async (label: string) => {
      await openInApp(page, url(`/p/${projectId}/simulations/scenarios`));
      await set.getByLabel('Agent version').fill(label);
      await set.getByRole('button', { name: 'Run set refunds' }).click();
      // The batch's page, live until both runs end.
      await page.waitForURL(/batch=/);
      const rows = page.locator('[data-run]');
      await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(2);
      await expect.poll(async () => (await rows.allTextContents()).every((t) => /passed|failed|error/.test(t)), { timeout: 30_000 }).toBe(true);
      return rows.allTextContents();
    };
    agent.version = 1;
    const first = await runSet('v1');
    expect(first.every((t) => t.includes('failed'))).toBe(true);
    agent.version = 2;
    const second = await runSet('v2');
    expect(second.every((t) => t.includes('passed'))).toBe(true);

    await openInApp(page, url(`/p/${projectId}/simulations?set=refunds`));
    await page.getByRole('link', { name: 'Compare batches' }).click();
    const verdict = page.getByTestId('sim-verdict');
    await checkPage('simulation-compare', () => verdict.waitFor());
    // The newest batch (v2) against the one before (v1): both scenarios from 0 % to 100 %, too few for a verdict.
    expect(await verdict.textContent()).toContain('The candidate passes 100% (2 of 2 runs), the baseline 0% (0 of 2).');
    expect(await verdict.textContent()).toContain('Not enough data: 2 scenarios ran in both batches; a verdict needs at least 20.');
    const row = page.getByRole('table', { name: 'Pass rate per scenario' }).locator('[data-compare-scenario="case 1"]');
    expect(await row.textContent()).toContain('0% (0 of 1)');
    expect(await row.textContent()).toContain('100% (1 of 1)');
    expect(await row.textContent()).toContain('+100.0 pts');
    // Each picker names a batch by the agent version it ran, not only its id.
    await expect.poll(() => page.getByLabel('Candidate').locator('option:checked').textContent()).toMatch(/^v2 · .* · 100%/);
    await expect.poll(() => page.getByLabel('Baseline').locator('option:checked').textContent()).toMatch(/^v1 · .* · 0%/);
  });
});
