import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startFakeServer, toolCallReply, type FakeServer, type RecordedRequest } from '../evaluators/fake-servers.ts';
import { appDatabaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, signInContext, openInApp } from '../support/browser.ts';
import { checkBothWidths } from '../support/both-widths.ts';

const MINUTE = 60_000;

/**
 * Threads in Debian's Chromium: the threads list (turns, duration, cost, errors, users, thread
 * scores; sorted by its headers, review scores among them, filtered with the traces list's
 * filters and by a review score, found by id), and a
 * thread page showing its evaluations as a whole with the turns each covered; a thread monitor
 * created in the form. The judge is the loopback fake. Desktop 1280 and phone 390.
 */
describe.runIf(hasChromium).each(appDatabaseKinds)('threads in a real browser (%s)', { timeout: 180_000 }, (kind) => {
  let web: TestApp;
  let fake: FakeServer;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  const shots = kind === appDatabaseKinds[0];
  const clock = new ManualClock(new Date(Date.now() - 60 * MINUTE));
  const req = (method: string, url: string, body?: unknown) => web.request(method, url, { authToken: web.creds.projectApiKey, body });

  async function turn(threadId: string, n: number, question: string, answer: string, options: { error?: boolean; user?: string } = {}) {
    const at = clock.now().getTime();
    const traceId = `${threadId}-t${n}`;
    const res = await req('POST', '/api/collector', {
      trace_id: traceId,
      metadata: { thread_id: threadId, user_id: options.user ?? 'maria' },
      spans: [
        {
          span_id: `${traceId}-llm`,
          type: 'llm',
          model: 'gpt-4o-mini',
          input: { type: 'text', value: question },
          output: { type: 'text', value: answer },
          metrics: { prompt_tokens: 200 + n * 30, completion_tokens: 40 },
          timestamps: { started_at: at, finished_at: at + 1200 + n * 100 },
          ...(options.error ? { error: { message: 'RateLimitError: 429' } } : {}),
        },
      ],
    });
    expect(res.status, res.text).toBe(200);
    clock.advance(MINUTE);
  }

  beforeAll(async () => {
    fake = await startFakeServer();
    fake.fallback = (r: RecordedRequest) => {
      const prompt = (r.body as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === 'user')?.content ?? '';
      const facts = [...prompt.matchAll(/Assistant: [^\n]*departs at (\d\d:\d\d)/g)].map((m) => m[1]);
      const consistent = new Set(facts).size <= 1;
      return toolCallReply('verdict', { reasoning: consistent ? 'The departure time never changes.' : `Turn 1 says ${facts[0]}, a later turn ${facts.find((f) => f !== facts[0])}.`, passed: consistent });
    };
    web = await startApp(kind, { clock });
    projectId = web.creds.project.id;
    const provider = await web.request('POST', '/api/model-providers', {
      token: web.creds.adminApiKey,
      projectId,
      body: { name: 'local', kind: 'openai_compatible', api_key: 'fake-key-5678', base_url: `${fake.url}/v1`, models: ['gpt-4o-mini'] },
    });
    expect(provider.status, provider.text).toBe(201);
    const judge = await req('POST', '/api/custom-evaluators', {
      slug: 'consistent',
      name: 'Consistent',
      prompt: '{{conversation}}\n\nDoes the assistant contradict itself?',
      model: 'local/gpt-4o-mini',
      answer: { type: 'pass_fail' },
    });
    expect(judge.status, judge.text).toBe(201);
    const monitor = await req('POST', '/api/monitors', { name: 'Consistency', evaluator: 'custom/consistent', unit: 'thread', idle_minutes: 5 });
    expect(monitor.status, monitor.text).toBe(200);

    const departs = ['09:15', '09:15', '09:15', '09:15', '14:40'];
    for (let i = 0; i < 5; i++) await turn('trip-to-lisbon', i + 1, `Question ${i + 1}: when does my flight leave?`, `Your flight departs at ${departs[i]} from gate B${i}.`);
    for (let i = 0; i < 3; i++) await turn('refund-order-5521', i + 1, `About my refund (${i + 1})`, 'Your flight departs at 07:05, and the refund is on its way.', { user: 'li' });
    await turn('password-reset', 1, 'I cannot log in', 'Sorry, something failed.', { error: true, user: 'sam' });
    clock.advance(10 * MINUTE);
    for (let i = 0; i < 3; i++) await web.app.services.jobs.runDue();

    browser = await workerBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })).newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
  }, 150_000);
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
    await fake?.close();
  });

  const url = (p: string) => `${web.baseUrl}/p/${projectId}${p}`;
  const rows = () => page.getByTestId('threads-table').locator('tbody tr');
  const ids = async () => rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-thread-id')));

  it('lists threads with their turns, cost, errors, users and thread scores; sorts, filters and finds them', async () => {
    await signInContext(page.context(), web.baseUrl, web.creds.user);
    await page.goto(`${web.baseUrl}/p/${projectId}/traces`);
    await page.getByRole('link', { name: 'Threads', exact: true }).click();
    await page.waitForURL('**/threads');
    await expect.poll(ids).toEqual(['password-reset', 'refund-order-5521', 'trip-to-lisbon']);
    const lisbon = page.locator('[data-thread-id="trip-to-lisbon"]');
    const cells = await lisbon.locator('td').allTextContents();
    expect(cells[1]).toBe('5');
    expect(cells[5]).toBe('maria');
    // The thread monitor's column: its newest result on each thread.
    expect(cells[6]).toBe('Fail ✗');
    expect(await page.locator('[data-thread-id="refund-order-5521"] [data-thread-monitor="Consistency"]').textContent()).toBe('Pass ✓');
    expect(await page.locator('[data-thread-id="password-reset"] td').nth(4).textContent()).toBe('1');

    // Sorted by a header: most turns first, then fewest.
    await page.getByRole('button', { name: 'Turns' }).click();
    await expect.poll(ids).toEqual(['trip-to-lisbon', 'refund-order-5521', 'password-reset']);
    await page.getByRole('button', { name: 'Turns' }).click();
    await expect.poll(ids).toEqual(['password-reset', 'refund-order-5521', 'trip-to-lisbon']);
    expect(page.url()).toContain('tsort=turns');

    // The traces list's filters: threads with a failed turn; a user.
    await openInApp(page, url('/threads?error=yes'));
    await expect.poll(ids).toEqual(['password-reset']);
    await openInApp(page, url('/threads?user=li'));
    await expect.poll(ids).toEqual(['refund-order-5521']);
    // Found by part of its id.
    await openInApp(page, url('/threads'));
    await page.getByLabel('Find a thread by id').fill('LISB');
    await expect.poll(ids).toEqual(['trip-to-lisbon']);
    expect(await page.getByTestId('threads-count').textContent()).toContain('1 thread');

    // Loaded afresh: the find box, kept by the page, would still hold "LISB".
    await page.goto(url('/threads'));
    await checkBothWidths(page, 'threads-list', () => expect.poll(ids).toHaveLength(3), shots);
  });

  it("filters the threads list by a thread monitor's newest result and sorts by it at its header; both kept in the URL", async () => {
    await openInApp(page, url('/threads'));
    await expect.poll(ids).toHaveLength(3);
    await page.getByLabel('Thread monitor').selectOption('Consistency');
    await expect.poll(() => decodeURIComponent(page.url())).toContain('teval=any:Consistency');
    await expect.poll(ids).toHaveLength(3);
    await page.getByLabel('Its newest result').selectOption('fail');
    await expect.poll(ids).toEqual(['trip-to-lisbon']);
    expect(decodeURIComponent(page.url())).toContain('teval=fail:Consistency');
    await page.reload();
    await expect.poll(ids, { timeout: 10_000 }).toEqual(['trip-to-lisbon']);
    await page.getByLabel('Its newest result').selectOption('pass');
    await expect.poll(ids).toEqual(['password-reset', 'refund-order-5521']);
    await checkBothWidths(page, 'threads-monitor-filter', () => expect.poll(ids).toHaveLength(2), shots);

    // The monitor's header sorts by its newest result: passes first (then by id), then fails first.
    await openInApp(page, url('/threads'));
    await page.getByRole('button', { name: 'Consistency', exact: true }).click();
    await expect.poll(ids).toEqual(['refund-order-5521', 'password-reset', 'trip-to-lisbon']);
    expect(decodeURIComponent(page.url())).toContain('tsort=eval:Consistency');
    await page.getByRole('button', { name: 'Consistency', exact: true }).click();
    await expect.poll(ids).toEqual(['trip-to-lisbon', 'password-reset', 'refund-order-5521']);

    // A monitor that never evaluated a thread: refused next to the field.
    await openInApp(page, url('/threads?teval=fail:Helpfulness'));
    const field = page.getByLabel('Thread monitor');
    // (the app asks once more before it believes a refusal)
    await expect.poll(() => field.getAttribute('aria-invalid'), { timeout: 10_000 }).toBe('true');
    expect(await page.locator('.thread-eval-filter').textContent()).toContain('No thread monitor named "Helpfulness" has evaluated a thread of this project.');
  });

  it('shows a thread’s evaluations with the turns each covered', async () => {
    await openInApp(page, url('/threads'));
    await page.getByRole('link', { name: 'trip-to-lisbon' }).click();
    await page.waitForURL('**/threads/trip-to-lisbon');
    const results = page.getByTestId('thread-evaluations');
    await expect.poll(() => results.locator('li').count()).toBe(1);
    expect(await results.getByTestId('covered-turns').textContent()).toBe('Turns 1–5');
    // Shown whole above the conversation, not squeezed by it.
    expect((await results.boundingBox())!.height).toBeGreaterThan(60);
    expect(await results.textContent()).toContain('Turn 1 says 09:15, a later turn 14:40.');
    expect(await results.locator('.score-chip').textContent()).toBe('Consistency ✗');
    // The mark sits on turn 5, the last it covered.
    // (the turns come in a request of their own, which may answer after the evaluations')
    const turns = page.getByTestId('thread-turns').locator('li.turn');
    await expect.poll(() => turns.count()).toBe(5);
    expect(await turns.nth(4).getByTestId('covered-mark').textContent()).toContain('Evaluated through turn 5');
    expect(await turns.nth(3).getByTestId('covered-mark').count()).toBe(0);

    // A sixth turn, then idle: a second result covering six turns; the mark moves.
    await turn('trip-to-lisbon', 6, 'And the gate?', 'Gate B5, the flight departs at 14:40.');
    clock.advance(10 * MINUTE);
    for (let i = 0; i < 3; i++) await web.app.services.jobs.runDue();
    await page.reload();
    await expect.poll(() => results.locator('li').count()).toBe(2);
    expect(await results.getByTestId('covered-turns').allTextContents()).toEqual(['Turns 1–6', 'Turns 1–5']);
    await expect.poll(() => turns.count()).toBe(6);
    expect(await turns.nth(5).getByTestId('covered-mark').count()).toBe(1);
    expect(await turns.nth(4).getByTestId('covered-mark').count()).toBe(0);

    await checkBothWidths(page, 'thread-evaluated', () => expect.poll(() => results.locator('li').count()).toBe(2), shots);
  });

  it('sends a thread to a review queue; the reviewer scores the conversation; the score shows on the thread and in the list', async () => {
    const config = await req('POST', '/api/score-configs', { name: 'Consistent', kind: 'boolean' });
    expect(config.status, config.text).toBe(201);
    const queue = await req('POST', '/api/queues', { name: 'Conversations', scoreConfigIds: [config.body.data.id] });
    expect(queue.status, queue.text).toBe(201);
    const queueId = queue.body.data.id as string;

    await openInApp(page, url('/threads/trip-to-lisbon'));
    await page.getByRole('button', { name: 'Add to queue' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add to a review queue' });
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => dialog.getByRole('status').textContent()).toBe('1 added.');
    await dialog.getByRole('button', { name: 'Close' }).last().click();

    // The reviewer sees the whole conversation (the thread page's view) beside the queue's scores.
    await openInApp(page, url(`/queues/${queueId}/review`));
    await expect.poll(() => page.getByTestId('review-trace-id').textContent()).toBe('thread trip-to-lisbon');
    const turns = page.getByTestId('thread-turns').locator('li.turn');
    await expect.poll(() => turns.count()).toBe(6);
    expect(await turns.nth(4).getByTestId('covered-mark').count()).toBe(0);
    expect(await turns.nth(5).getByTestId('covered-mark').count()).toBe(1);
    await checkBothWidths(page, 'thread-review', () => expect.poll(() => turns.count()).toBe(6), shots);
    const form = page.getByRole('form', { name: 'Scores' });
    await form.getByText('No', { exact: true }).click();
    await form.getByLabel('Comment').fill('Turn 5 gives another departure time');
    await form.getByRole('button', { name: 'Done (Enter)' }).click();
    await expect.poll(() => page.getByTestId('review-empty').count()).toBe(1);

    await openInApp(page, url('/threads/trip-to-lisbon'));
    const reviews = page.getByTestId('thread-reviews');
    await expect.poll(() => reviews.locator('li').count()).toBe(1);
    expect(await reviews.textContent()).toContain('Turn 5 gives another departure time');
    expect(await reviews.locator('.score-chip').textContent()).toBe('Consistent ✗');
    await openInApp(page, url('/threads'));
    await expect.poll(() => page.locator('[data-thread-id="trip-to-lisbon"] [data-review-score="Consistent"]').textContent()).toBe('No');
    expect(await page.locator('[data-thread-id="refund-order-5521"] [data-review-score="Consistent"]').textContent()).toBe('—');
  });

  it('sorts the threads list by a review score at its header and filters it by one; both kept in the URL', async () => {
    // A second thread scored, through the API: the refund conversation is consistent.
    const configId = (await req('GET', '/api/score-configs')).body.data.find((c: { name: string }) => c.name === 'Consistent').id as string;
    const queue = await req('POST', '/api/queues', { name: 'More conversations', scoreConfigIds: [configId] });
    await req('POST', `/api/queues/${queue.body.data.id}/items`, { threads: ['refund-order-5521'] });
    const next = await req('POST', `/api/queues/${queue.body.data.id}/next`);
    const done = await req('POST', `/api/queues/${queue.body.data.id}/items/${next.body.data.id}/complete`, { scores: [{ configId, value: true }] });
    expect(done.status, done.text).toBe(200);

    await openInApp(page, url('/threads'));
    await expect.poll(ids).toHaveLength(3);
    // The score's header sorts: highest first, unscored last; again: lowest first, unscored still last.
    await page.getByRole('button', { name: 'Consistent', exact: true }).click();
    await expect.poll(ids).toEqual(['refund-order-5521', 'trip-to-lisbon', 'password-reset']);
    expect(decodeURIComponent(page.url())).toContain(`tsort=score:${configId}`);
    await page.getByRole('button', { name: 'Consistent', exact: true }).click();
    await expect.poll(ids).toEqual(['trip-to-lisbon', 'refund-order-5521', 'password-reset']);

    // Filtered by the thread's review score: the conversations people found inconsistent.
    await page.getByLabel('Thread review score').selectOption(configId);
    await page.getByLabel('Value').selectOption('false');
    await expect.poll(ids).toEqual(['trip-to-lisbon']);
    expect(decodeURIComponent(page.url())).toContain(`tscore=${configId}:=false`);
    // The URL alone gives the same list.
    await page.reload();
    await expect.poll(ids, { timeout: 10_000 }).toEqual(['trip-to-lisbon']);
    await checkBothWidths(page, 'threads-review-score', () => expect.poll(ids).toEqual(['trip-to-lisbon']), shots);
  });

  it('creates a thread monitor in the form; an idle time out of bounds is refused next to its field', async () => {
    await openInApp(page, url('/monitors/new?evaluator=custom/consistent'));
    await page.getByText('Whole threads').click();
    const idle = page.getByLabel('Idle time (minutes)');
    await idle.fill('20000');
    await page.getByLabel('Name').fill('Consistency (hourly)');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    const field = page.locator('.mantine-NumberInput-root', { has: idle });
    await expect.poll(() => field.locator('.mantine-InputWrapper-error').textContent().catch(() => '')).toContain('10080');
    await idle.fill('60');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.waitForURL('**/monitors/mon_*');
    // The monitor's page and the list say when it runs.
    await expect.poll(() => page.getByTestId('monitor-trigger').textContent()).toBe('Runs on threads, once idle 1 h');
    await openInApp(page, url('/monitors'));
    const row = page.getByRole('row').filter({ hasText: 'Consistency (hourly)' });
    expect(await row.getByTestId('monitor-trigger').textContent()).toBe('threads, once idle 1 h');
    const list = await req('GET', '/api/monitors');
    expect(list.body.data.find((m: { name: string }) => m.name === 'Consistency (hourly)')).toMatchObject({ unit: 'thread', idle_minutes: 60 });
  });

  it('puts a thread monitor on a schedule in the form; a schedule off the clock is refused next to its field', async () => {
    await openInApp(page, url('/monitors/new?evaluator=custom/consistent'));
    await page.getByText('Whole threads').click();
    await page.getByText('On a schedule').click();
    const every = page.getByLabel('Every (minutes)');
    await every.fill('7');
    await page.getByLabel('Name').fill('Consistency (every 15 minutes)');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    const field = page.locator('.mantine-NumberInput-root', { has: every });
    await expect.poll(() => field.locator('.mantine-InputWrapper-error').textContent().catch(() => '')).toContain('divide a day');
    await checkBothWidths(page, 'thread-monitor-schedule', () => expect.poll(() => field.locator('.mantine-InputWrapper-error').count()).toBe(1), shots);
    await every.fill('15');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.waitForURL('**/monitors/mon_*');
    // The monitor's page and the list say when it runs.
    await expect.poll(() => page.getByTestId('monitor-trigger').textContent()).toBe('Runs on threads, every 15 min (UTC)');
    await openInApp(page, url('/monitors'));
    const row = page.getByRole('row').filter({ hasText: 'Consistency (every 15 minutes)' });
    expect(await row.getByTestId('monitor-trigger').textContent()).toBe('threads, every 15 min (UTC)');
    await checkBothWidths(page, 'monitors', () => row.waitFor(), false);
    const list = await req('GET', '/api/monitors');
    expect(list.body.data.find((m: { name: string }) => m.name === 'Consistency (every 15 minutes)')).toMatchObject({ unit: 'thread', idle_minutes: null, schedule_minutes: 15 });
  });
});
