import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, seriousViolations, openInApp, openSignedIn } from '../support/browser.ts';
import { expectSaidAt } from '../support/field-errors.ts';
import { PHONE, unreachableActions, widerThanScreen } from '../support/phone-width.ts';
import { agentTrace, bigTrace, simpleTrace } from '../support/sample-traces.ts';
import { startFakeServer, streamReply, type FakeServer } from '../evaluators/fake-servers.ts';

/**
 * Issue 26, "Defects": what a walk through the app in Chromium found, one step each, and the
 * phone-width rule on every page (nothing wider than a 390 px screen, every action reachable).
 * Screenshots of the steps go to SPYGLASS_PART3_SHOTS when it names a directory (none otherwise).
 */
describe.runIf(hasChromium)('the web app walked on a desktop and a phone: the defects found there stay fixed', () => {
  const kind = appDatabaseKinds[0];
  const SHOTS = process.env.SPYGLASS_PART3_SHOTS;
  let web: TestApp;
  let openai: FakeServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectId = '';
  let key = '';
  let promptId = '';
  let monitorId = '';
  let endpointId = '';
  const now = Date.now();

  beforeAll(async () => {
    openai = await startFakeServer();
    web = await startApp(kind, {
      env: { SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1', SPYGLASS_WEBHOOK_POLL_MS: '100', OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${openai.url}/v1` },
    });
    projectId = web.creds.project.id;
    key = web.creds.projectApiKey;
    const send = async (body: unknown) => expect((await web.request('POST', '/api/collector', { authToken: key, body })).status).toBe(200);
    // A list long enough to scroll: plain traces a few minutes apart, older than the rest.
    // (Side by side: each is one request, and none needs another.)
    await Promise.all(Array.from({ length: 140 }, (_, i) => send(simpleTrace(`plain-${i}`, now - 10 * 60_000 - i * 60_000, i))));
    // Agent runs every 30 s (a failing tool every third one), by users known by e-mail.
    for (let i = 0; i < 8; i++) await send(agentTrace(`agent-${i}`, now - 30_000 * i, { failTool: i % 3 === 0, userId: `user${i}@example.com` }));
    // A long trace: 2,500 spans over 100 s (the waterfall's ticks once read "1 min 15 s1 min 40 s").
    const big = bigTrace('long-batch', now, 2500);
    const t0 = (big.spans[0].timestamps as { started_at: number }).started_at;
    for (const s of big.spans as { timestamps: { started_at: number; finished_at: number } }[]) {
      s.timestamps = { started_at: t0 + (s.timestamps.started_at - t0) * 18, finished_at: t0 + (s.timestamps.finished_at - t0) * 18 };
    }
    await send(big);
    const prompt = await web.request('POST', '/api/prompts', {
      authToken: key,
      body: {
        handle: 'structured-answer',
        prompt: 'Answer in JSON.',
        messages: [{ role: 'user', content: '{{question}}' }],
        inputs: [{ identifier: 'question', type: 'str' }],
        outputs: [{ identifier: 'reply', type: 'json_schema', json_schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } }],
        model: 'openai/gpt-4o-mini',
      },
    });
    expect(prompt.status, prompt.text).toBe(200);
    promptId = prompt.body.id;
    const monitor = await web.request('POST', '/api/monitors', { authToken: key, body: { name: 'PII watch', evaluator: 'pii/pii_detection', settings: { entities: { email_address: true, person: true, phone_number: false } }, sample: 0.5, enabled: false } });
    expect(monitor.status, monitor.text).toBe(200);
    monitorId = monitor.body.id;
    // An endpoint whose receiver is down: every attempt fails.
    const endpoint = await web.request('POST', '/api/webhooks/v1/endpoints', {
      token: web.creds.adminApiKey,
      projectId,
      body: { url: 'http://127.0.0.1:9/spyglass/receivers/a-rather-long-path/for-the-endpoint', description: 'Receiver that is down', enabled_events: ['trace.*'] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    endpointId = endpoint.body.data.id;
    expect((await web.request('POST', `/api/webhooks/v1/endpoints/${endpointId}/test`, { token: web.creds.adminApiKey, projectId })).status).toBeLessThan(300);

    browser = await workerBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });
    // Generous, as the other browser files' are: an app of its own and 2,700 spans to store took
    // over the suite's two minutes once the two cores were shared by three runs.
  }, 300_000);
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
    await openai?.close();
  });

  const url = (p: string) => web.baseUrl + p;
  const project = (p: string) => url(`/p/${projectId}${p}`);
  const screenshot = async (name: string, p: Page = page) => {
    if (SHOTS) await p.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  };
  const desktop = () => page.setViewportSize({ width: 1280, height: 800 });
  const phone = () => page.setViewportSize(PHONE);
  async function accessible(p: Page = page) {
    expect(await seriousViolations(p)).toEqual([]);
  }
  /** The phone-width rule on the page as it is now. */
  async function fitsThePhone(what: string, scope = 'body') {
    expect(await widerThanScreen(page), `${what}: wider than the screen`).toEqual([]);
    expect(await unreachableActions(page, scope), `${what}: actions out of reach`).toEqual([]);
  }
  const grid = () => page.getByTestId('traces-grid');

  it('opens the traces list signed in', async () => {
    await openSignedIn(page, web.baseUrl, web.creds.user, `/p/${projectId}/traces`);
    await grid().waitFor();
  });

  it('1. phone width: every page fits a 390 px screen and every action on it can be reached', async () => {
    const pages: [string, string, string][] = [
      ['traces', '/traces', '[data-testid=traces-grid] [role=row][data-trace-id]'],
      ['trace', '/traces/agent-0', '[data-testid=span-tree] [role=treeitem]'],
      ['long trace', '/traces/long-batch', '[data-testid=span-tree] [role=treeitem]'],
      ['prompts', '/prompts', 'text=structured-answer'],
      ['prompt', `/prompts/${promptId}`, 'role=tab[name="Edit"]'],
      ['prompt preview', `/prompts/${promptId}?tab=preview`, 'role=button[name="Try it"]'],
      ['evaluators', '/evaluators', '[data-evaluator]'],
      ['evaluator', '/evaluators/pii/pii_detection', 'role=button[name="Run"]'],
      ['monitors', '/monitors', 'text=PII watch'],
      ['monitor', `/monitors/${monitorId}`, 'role=heading[name="PII watch"]'],
      ['new monitor', '/monitors/new', 'role=button[name="Create monitor"]'],
      ['analytics', '/analytics', '[data-testid=dashboard-grid] [data-testid=chart-value-total-traces]'],
      ['projects', '/settings/projects', 'role=heading[name="Projects"]'],
      ['members', '/settings/members', '[data-member]'],
      ['api keys', '/settings/api-keys', 'role=button[name="Create API key"]'],
      ['webhooks', '/settings/webhooks', `[data-endpoint-id="${endpointId}"]`],
      ['organization', '/settings/organization', 'role=button[name="Rename"]'],
      ['account', '/settings/account', 'text=this session'],
    ];
    await phone();
    for (const [name, p, ready] of pages) {
      await openInApp(page, project(p));
      await page.locator(ready).first().waitFor();
      await page.waitForLoadState('networkidle');
      await screenshot(`phone-${name.replace(/ /g, '-')}`);
      await fitsThePhone(name);
    }

    // The API key dialog: within the screen, and "Create key" reachable.
    await page.goto(project('/settings/api-keys'));
    await page.getByRole('button', { name: 'Create API key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Phone key');
    await screenshot('phone-api-key-create');
    await fitsThePhone('the API key dialog', '[role=dialog]');
    await dialog.getByRole('button', { name: 'Create key' }).scrollIntoViewIfNeeded();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('shown-once').waitFor();

    // The webhook endpoint: its whole URL shown, its switch and Delete on screen.
    await page.goto(project('/settings/webhooks'));
    const card = page.locator(`[data-endpoint-id="${endpointId}"]`);
    await card.getByText('for-the-endpoint', { exact: false }).waitFor();
    const urlBox = (await card.getByText('http://127.0.0.1:9/', { exact: false }).boundingBox())!;
    expect(urlBox.width).toBeGreaterThan(200); // not one word per line
    for (const control of [card.getByRole('switch'), card.getByRole('button', { name: /^Delete/ })]) {
      await control.scrollIntoViewIfNeeded();
      const box = (await control.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    }

    // The list on a phone still tells a failed trace, its cost and its evaluations.
    await page.goto(project('/traces'));
    const failed = page.locator('[role=row][data-trace-id="agent-0"]');
    await failed.waitFor();
    expect(await failed.locator('.c-error [role=img]').isVisible()).toBe(true);
    expect(await failed.locator('.c-cost').isVisible()).toBe(true);
    // (no evaluation on this one: its cell is empty, but laid out, not hidden)
    expect(await failed.locator('.c-evals').evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { display: string } }).getComputedStyle(el).display)).not.toBe('none');
    await desktop();
  });

  it('2. live rows land where "newest first" puts them, not on top in the order they came', async () => {
    await page.goto(project('/traces'));
    await grid().locator('[role=row][data-trace-id="agent-0"]').waitFor();
    await page.waitForTimeout(2000); // the live poll has learnt the server's clock
    // One OTLP batch of three traces that started 1, 2 and 3 minutes ago (between the agent runs).
    const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');
    const spans = [1, 2, 3].map((m) => ({
      traceId: hex(0xabc000 + m, 32),
      spanId: hex(0xdef000 + m, 16),
      name: `late ${m}`,
      kind: 1,
      startTimeUnixNano: String((now - m * 60_000) * 1e6),
      endTimeUnixNano: String((now - m * 60_000 + 800) * 1e6),
      attributes: [{ key: 'gen_ai.prompt', value: { stringValue: `Question sent ${m} minutes ago` } }],
    }));
    const res = await web.request('POST', '/api/otel/v1/traces', { authToken: key, body: { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'batch' }, spans }] }] } });
    expect(res.status, res.text).toBe(200);
    await grid().locator(`[data-trace-id="${spans[2].traceId}"]`).waitFor({ state: 'attached' });
    // Rows as drawn (by their offset), top to bottom, are in the order the server sorts them.
    const drawn = (
      await grid()
        .locator('[role=row][data-trace-id]')
        .evaluateAll((rows) => rows.map((r) => [Number(/translateY\(([\d.]+)px\)/.exec(r.getAttribute('style') ?? '')?.[1] ?? 0), r.getAttribute('data-trace-id')!] as const))
    )
      .sort((a, b) => a[0] - b[0])
      .map(([, id]) => id);
    expect(drawn.length).toBeGreaterThan(10);
    const sorted = (await web.request('POST', '/api/trace/search', { authToken: key, body: { pageSize: 100 } })).body.traces.map((t: { trace_id: string }) => t.trace_id) as string[];
    expect(drawn).toEqual(sorted.filter((id) => drawn.includes(id)));
    await screenshot('live-rows-in-order');
  });

  it('3. Back from a trace returns to the same place in the list, with the pages loaded', async () => {
    await page.goto(project('/traces'));
    await grid().locator('[role=row][data-trace-id]').first().waitFor();
    await grid().evaluate((el) => (el.scrollTop = 3000));
    await page.waitForTimeout(300);
    await grid().evaluate((el) => (el.scrollTop = 3000)); // once more, after the next page came
    await page.waitForTimeout(500);
    const before = await grid().evaluate((el) => el.scrollTop);
    expect(before).toBeGreaterThan(2500);
    // The row in the middle of the list as it stands, clicked where it is (no scrolling to it).
    const box = (await grid().boundingBox())!;
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    const traceId = await page.evaluate<string>(`document.elementFromPoint(${x}, ${y}).closest('[data-trace-id]').getAttribute('data-trace-id')`);
    expect(traceId).toMatch(/^plain-/);
    await page.mouse.click(x, y);
    await page.waitForURL(`**/traces/${traceId}`);
    await page.locator('[data-testid=span-tree] [role=treeitem]').first().waitFor();
    await page.goBack();
    await page.waitForURL(/\/traces(\?|$)/);
    await grid().locator(`[data-trace-id="${traceId}"]`).waitFor();
    const after = await grid().evaluate((el) => el.scrollTop);
    expect(Math.abs(after - before)).toBeLessThan(40);
    expect(await grid().locator(`[data-trace-id="${traceId}"]`).isVisible()).toBe(true);
  });

  it('4. the waterfall of a long trace has ticks that never collide', async () => {
    for (const size of [{ width: 1280, height: 800 }, PHONE]) {
      await page.setViewportSize(size);
      await page.goto(project('/traces/long-batch'));
      await page.locator('[data-testid=span-tree] [role=treeitem]').first().waitFor();
      const ticks = await page.locator('.timeline-head .tick:visible').evaluateAll((els) =>
        els.map((e) => {
          const r = e.getBoundingClientRect();
          const head = e.parentElement!.getBoundingClientRect();
          return { text: e.textContent, left: r.left, right: r.right, headRight: head.right + 8 };
        }),
      );
      expect(ticks.length).toBeGreaterThan(1);
      for (let i = 1; i < ticks.length; i++) expect(ticks[i].left, `${ticks[i - 1].text} and ${ticks[i].text} at ${size.width} px`).toBeGreaterThan(ticks[i - 1].right + 4);
      for (const t of ticks) expect(t.right, `${t.text} past the edge`).toBeLessThanOrEqual(t.headRight + 1);
      await screenshot(`long-trace-ticks-${size.width}`);
    }
    await desktop();
  });

  it('5. "No attribute matches" only after a search that matches nothing', async () => {
    // A span with resource attributes and none of its own.
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }, { key: 'host.name', value: { stringValue: 'web-1' } }] },
          scopeSpans: [{ scope: { name: 'bare' }, spans: [{ traceId: 'b'.repeat(32), spanId: 'c'.repeat(16), name: 'bare span', kind: 1, startTimeUnixNano: String((now - 5000) * 1e6), endTimeUnixNano: String((now - 4000) * 1e6) }] }],
        },
      ],
    };
    expect((await web.request('POST', '/api/otel/v1/traces', { authToken: key, body })).status).toBe(200);
    await page.goto(project(`/traces/${'b'.repeat(32)}?span=${'c'.repeat(16)}`));
    const search = page.getByLabel('Search attributes');
    await search.waitFor();
    await page.getByText('web-1').waitFor();
    expect(await page.getByText(/No attribute matches/).count()).toBe(0);
    await search.fill('no-such-thing');
    await page.getByText(/No attribute matches/).waitFor();
    expect(await page.getByText(/No attribute matches/).count()).toBe(1);
  });

  it('6. analytics: dates on a 7-day axis, latency labels on one line and 0 as 0, traces and spans apart, one time zone', async () => {
    await page.goto(project('/analytics?range=7d'));
    await page.getByRole('figure', { name: /^Traces:/ }).locator('svg').first().waitFor({ timeout: 30_000 });
    await page.getByRole('figure', { name: /^Spans:/ }).locator('svg').first().waitFor();
    await expect.poll(() => page.getByRole('figure', { name: /^Traces:/ }).locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').count()).toBeGreaterThan(0);
    const xTicks = await page.getByRole('figure', { name: /^Traces:/ }).locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
    expect(xTicks.length).toBeGreaterThan(0);
    for (const t of xTicks) expect(t).toMatch(/[A-Z][a-z]{2} \d{1,2}/); // "Nov 27, 5:00 AM": the date is there
    const latency = page.getByRole('figure', { name: /^Latency p95/ });
    await latency.locator('svg').first().waitFor();
    await expect.poll(() => latency.locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value').count()).toBeGreaterThan(0);
    const yTicks = await latency.locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value').evaluateAll((els) => els.map((e) => ({ text: e.textContent, lines: e.querySelectorAll('tspan').length })));
    expect(yTicks.length).toBeGreaterThan(0);
    for (const t of yTicks) {
      expect(t.lines, `${t.text} wraps`).toBeLessThanOrEqual(1);
      expect(t.text).not.toBe('<1 ms');
    }
    expect(yTicks.map((t) => t.text)).toContain('0');
    await expect.poll(() => page.getByText(/times in your time zone/).count()).toBe(1);
    await screenshot('analytics-7d');
    // UTC, chosen once in the account menu, everywhere (the list too).
    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'Show times in UTC' }).click();
    await page.getByText(/times in UTC/).waitFor();
    await page.goto(project('/traces/agent-1'));
    await page.locator('[data-testid=span-tree] [role=treeitem]').first().waitFor();
    expect(await page.locator('.trace-top').textContent()).toContain('UTC');
    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'Show times in my time zone' }).click();
    await page.locator('[data-testid=span-tree] [role=treeitem]').first().waitFor();
  });

  it('7. evaluator playground: filling from a trace clears the last error; PII entities grouped by country, searchable, a group at once', async () => {
    await page.goto(project('/evaluators/pii/pii_detection'));
    // A run without data fails...
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText('The request was refused').waitFor();
    // ...and data from a trace is a fresh start.
    await page.getByRole('button', { name: 'Fill from a trace' }).click();
    await page.getByRole('dialog').locator('[data-trace-id="agent-1"]').click();
    await page.waitForURL(/trace=agent-1/);
    await expect.poll(() => page.getByText('The request was refused').count()).toBe(0);

    // About 80 entities: not 80 switches at once.
    const entities = page.getByRole('group', { name: /entities/ });
    await entities.waitFor();
    expect(await entities.locator('input[type=checkbox]:visible').count()).toBeLessThan(30);
    await page.getByLabel('Search entities').fill('passport');
    await expect.poll(() => entities.getByRole('checkbox', { name: /passport/ }).count()).toBeGreaterThan(5);
    expect(await entities.getByRole('checkbox', { name: 'de_passport' }).isVisible()).toBe(true);
    await page.getByLabel('Search entities').fill('Germany');
    const germany = entities.getByRole('checkbox', { name: 'All of Germany' });
    await germany.check();
    await expect.poll(() => entities.locator('input[type=checkbox][aria-label^="de_"]:checked').count()).toBe(await entities.locator('input[type=checkbox][aria-label^="de_"]').count());
    await screenshot('pii-entities');
    await phone();
    await fitsThePhone('the PII settings');
    await desktop();
  });

  it('8. monitors: settings in words, and a monitor can be edited after it is made', async () => {
    await page.goto(project(`/monitors/${monitorId}`));
    const settings = page.getByTestId('monitor-settings');
    await settings.waitFor();
    expect(await settings.textContent()).not.toContain('{"');
    expect(await settings.textContent()).toMatch(/\d+ of \d+ on/);
    await page.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('region', { name: 'Edit the monitor' });
    // A refusal is said next to its field (a name of spaces passes the browser's "required"; the server trims it to nothing).
    await form.getByLabel('Name').fill('   ');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await saidAt(form.getByLabel('Name'), 'Required.');
    expect(await form.getByRole('alert').count()).toBe(0);
    await form.getByLabel('Name').fill('PII watch (EU)');
    await form.getByLabel('Sample (%)').fill('25');
    await form.getByLabel('Labels').fill('support, eu');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'PII watch (EU)' }).waitFor();
    const saved = (await web.request('GET', `/api/monitors/${monitorId}`, { authToken: key })).body;
    expect(saved).toMatchObject({ name: 'PII watch (EU)', sample: 0.25, filters: { labels: ['support', 'eu'] }, enabled: false });
    await screenshot('monitor-edited');

    // The run over past traces: a range the server refuses is said at the input concerned.
    await page.getByRole('button', { name: 'Run over past traces' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run over past traces' });
    await dialog.getByLabel('Traces started in').selectOption('custom');
    await dialog.getByLabel('From').fill('1960-01-01T00:00');
    await saidAt(dialog.getByLabel('From'), 'Must be in 1970 or later.');
    expect(await dialog.getByRole('button', { name: 'Start' }).isDisabled()).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  const saidAt = (field: Locator, text: string) => expectSaidAt(page, field, text);

  it('9. "Try it" sends the JSON Schema output as response_format', async () => {
    // The playground streams its answers.
    openai.queue(streamReply(['{"answer":"tomorrow"}']));
    await page.goto(project(`/prompts/${promptId}?tab=preview`));
    await page.getByLabel(/^question/).fill('When does it arrive?');
    await page.getByRole('button', { name: 'Try it' }).click();
    // The column shows at once, streaming; the answer once the provider has been called.
    await page.getByTestId('run-result').getByText('tomorrow').waitFor();
    const sent = openai.requests.at(-1)!;
    expect(sent.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'reply', schema: { type: 'object', required: ['answer'] } } });
  });

  it('10. refusals are said in words for people, next to the field concerned', async () => {
    await page.goto(project('/settings/account'));
    await page.getByLabel('Current password').fill('not-my-password');
    await page.locator('input[autocomplete=new-password]').nth(0).fill('a-new-password-1');
    await page.locator('input[autocomplete=new-password]').nth(1).fill('a-new-password-1');
    await page.getByRole('button', { name: 'Change password' }).click();
    // Said under the field, which points at it (aria-describedby).
    await page.getByText('This is not your current password').waitFor();
    const describedBy = await page.locator('input[autocomplete=current-password]').getAttribute('aria-describedby');
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toContain('This is not your current password');
    const said = await page.locator('.settings-page').textContent();
    expect(said).toContain('This is not your current password');
    expect(said).not.toContain('currentPassword');
    expect(said).not.toContain('(field:');

    await page.goto(project('/prompts'));
    await page.getByRole('button', { name: /New prompt/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Handle').fill('Bad Handle');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByText('Must be lowercase letters', { exact: false }).waitFor();
    const handleHelp = await dialog.getByLabel('Handle').getAttribute('aria-describedby');
    expect(await page.locator(`[id="${handleHelp?.split(' ').find((id) => id.endsWith('-error'))}"]`).textContent()).toContain('Must be lowercase letters');
    const text = (await dialog.textContent())!;
    expect(text).toContain('Must be lowercase letters');
    expect(text).not.toContain('body.handle');
    await screenshot('handle-refused');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it("11. a browser opening an unknown address gets the app's not-found page; programs keep their JSON 404", async () => {
    const response = await page.goto(url('/this/does/not/exist'));
    expect(response?.status()).toBe(404);
    expect(response?.headers()['content-type']).toContain('text/html');
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await accessible();
    const program = await web.request('GET', '/this/does/not/exist');
    expect(program.status).toBe(404);
    expect(program.body).toEqual({ error: { type: 'not_found', code: 'route_not_found', message: 'no route GET /this/does/not/exist' } });
    const api = await web.request('GET', '/api/does-not-exist', { headers: { accept: 'text/html' } });
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toContain('application/json');
  });

  it('12. one time format, the browser locale\'s, in the list and on the trace page', async () => {
    await page.goto(project('/traces'));
    const listTime = (await grid().locator('[role=row][data-trace-id="agent-1"] .c-time').textContent())!;
    await page.goto(project('/traces/agent-1'));
    await page.locator('[data-testid=span-tree] [role=treeitem]').first().waitFor();
    const pageTime = (await page.locator('.trace-top').textContent())!;
    // en-US: a 12-hour clock in both places.
    expect(listTime).toMatch(/\d{1,2}:\d{2}:\d{2}\s?[AP]M/);
    expect(pageTime).toMatch(/\d{1,2}:\d{2}:\d{2}\s?[AP]M/);
  });

  it('13. sharing: the dialog says what a visitor sees; the user is hidden by default, metadata and attributes on request', async () => {
    await page.goto(project('/traces/agent-2'));
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByLabel('Hide the user').isChecked()).toBe(true);
    expect(await dialog.getByLabel('Hide the metadata').isChecked()).toBe(false);
    expect(await dialog.getByTestId('share-preview').textContent()).toMatch(/Hidden:.*the user/);
    await dialog.getByLabel('Hide the span attributes').check();
    expect(await dialog.getByTestId('share-preview').textContent()).toMatch(/Hidden:.*span attributes/);
    await accessible();
    await screenshot('share-dialog');
    await dialog.getByRole('button', { name: 'Share and copy the link' }).click();
    const shared = (await page.getByTestId('share-link').getAttribute('href'))!;
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const guest = await visitor.newPage();
    await guest.goto(shared);
    await guest.locator('#trace-input').waitFor();
    expect(await guest.locator('body').textContent()).not.toContain('user2@example.com');
    expect(await guest.locator('body').textContent()).toContain('acme-retail'); // metadata still shown
    await guest.locator('[role=treeitem]', { hasText: 'track_parcel' }).click();
    await guest.getByText('Duration').first().waitFor();
    expect(await guest.getByText('carrier.example').count()).toBe(0); // its http.url attribute
    await screenshot('shared-without-user', guest);
    // Changed later: the metadata hidden too.
    await page.getByRole('button', { name: 'What it shows' }).click();
    await page.getByRole('dialog').getByLabel('Hide the metadata').check();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await guest.reload();
    await guest.locator('#trace-input').waitFor();
    expect(await guest.locator('body').textContent()).not.toContain('acme-retail');
    await visitor.close();
  });

  it('14. accessibility: the list with failed traces and the webhooks page with a failing endpoint', async () => {
    await page.goto(project('/traces'));
    await grid().locator('[role=row][data-trace-id="agent-0"] .c-error [role=img]').waitFor();
    await accessible();
    await page.goto(project('/settings/webhooks'));
    await page.getByText('Every attempt has failed').waitFor({ timeout: 15_000 });
    await accessible();
    await screenshot('webhooks-failing');
  });
});
