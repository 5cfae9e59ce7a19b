import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, ConsoleMessage, Page, Request } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, seriousViolations, saveScreenshot, openInApp } from '../support/browser.ts';
import { spanAt, withExporter } from '../support/otel.ts';
import { agentTrace } from '../support/sample-traces.ts';

/**
 * One journey through the web app in Debian's Chromium, against the real server: the
 * browser talks to one process while traces arrive through another on the same database
 * (PostgreSQL when the suite has it), as in a cluster.
 */
describe.runIf(hasChromium)('the web app in a real browser', () => {
  const kind = appDatabaseKinds[0];
  let web: TestApp;
  let ingest: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectKey = '';
  let projectId = '';
  let llmSpanId = '';

  beforeAll(async () => {
    web = await startApp(kind, { fresh: true });
    ingest = await startApp(kind, { reopen: web });
    browser = await workerBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    projectId = web.creds.project.id;
  });
  afterAll(async () => {
    await closeContexts(browser);
    await ingest?.close();
    await web?.close();
  });

  const url = (p: string) => web.baseUrl + p;
  async function accessible(p: Page = page) {
    expect(await seriousViolations(p)).toEqual([]);
  }
  const screenshot = (name: string, p: Page = page) => saveScreenshot(p, name);

  let secondPage: Page | undefined;
  /**
   * The page of a second browser, its cookies cleared: the fresh browser that opens the list,
   * later the visitor's (a new page costs Chromium about 3 s, most of a test).
   */
  async function cookielessPage(): Promise<Page> {
    secondPage ??= await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await secondPage.context().clearCookies();
    return secondPage;
  }

  it('signs in as the first-start admin and lands on the empty project with a first-run panel', async () => {
    await page.goto(url('/'));
    await page.waitForURL(/\/signin/);
    await accessible();
    await screenshot('sign-in');
    await page.getByLabel('E-mail').fill(web.creds.user.email);
    await page.locator('input[type=password]').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('wrong');
    await page.locator('input[type=password]').fill(web.creds.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`**/p/${projectId}/traces`);
    await page.getByRole('heading', { name: 'Send your first trace' }).waitFor();
    // The snippets name this server, and the button puts a fresh project key in them.
    await page.getByRole('button', { name: 'Create a project key' }).click();
    const snippet = page.locator('pre code').first();
    await expect.poll(() => snippet.textContent()).toContain('sgp-');
    const text = (await snippet.textContent())!;
    expect(text).toContain(`${web.baseUrl}/api/otel`);
    projectKey = /X-Auth-Token=(sgp-[A-Za-z0-9_]+)/.exec(text)![1];
    await accessible();
    await screenshot('first-run');
  });

  it('shows a trace sent through OTLP (to another process) in the list without a reload', async () => {
    const now = Date.now();
    await withExporter(ingest.baseUrl, { 'x-auth-token': projectKey }, 'protobuf', (tracer) => {
      const root = spanAt(tracer, 'support agent', { 'langwatch.user.id': 'customer-829', 'langwatch.thread.id': 'thread-4417', 'langwatch.span.type': 'agent', 'gen_ai.prompt': 'Where is my parcel 4417?' }, now - 3000, now);
      const llm = spanAt(
        tracer,
        'chat gpt-4o-mini',
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.usage.input_tokens': 1240,
          'gen_ai.usage.output_tokens': 38,
          'gen_ai.usage.cache_read.input_tokens': 1024,
          'gen_ai.input.messages': JSON.stringify([
            { role: 'system', parts: [{ type: 'text', content: 'You are the parcel assistant.' }] },
            { role: 'user', parts: [{ type: 'text', content: 'Where is my parcel 4417?' }] },
          ]),
          'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'It arrives <b>tomorrow</b> before noon.' }] }]),
        },
        now - 2500,
        now - 500,
        root.span,
      );
      llm.end();
      root.end();
    });
    const row = page.locator('[role=row][data-trace-id]').first();
    await row.waitFor({ timeout: 5000 });
    expect(await row.textContent()).toContain('Where is my parcel 4417?');
    expect(page.url()).toContain('/traces'); // no navigation happened

    // Another trace arrives while the pointer rests on that row: the row stays where it is.
    await row.hover();
    const before = (await row.boundingBox())!;
    await ingest.request('POST', '/api/collector', { authToken: projectKey, body: agentTrace('second-trace', Date.now(), { question: 'Can I change my delivery address?' }) });
    await page.locator('[data-trace-id="second-trace"]').waitFor({ state: 'attached', timeout: 5000 });
    const after = (await row.boundingBox())!;
    expect(Math.abs(after.y - before.y)).toBeLessThan(2);
    await page.mouse.move(5, 5);
    await accessible();
    await screenshot('traces');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot('traces-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("a fresh browser opening the list asks for the session and the list's first page once each, started by the first answer before the app's code runs", async () => {
    const first = await cookielessPage();
    await first.context().addCookies(await context.cookies());
    const problems: string[] = [];
    const onConsole = (m: ConsoleMessage) => void (m.type() === 'error' && problems.push(m.text()));
    const asked: string[] = [];
    const onRequest = (r: Request) => void (r.url().includes('/api/') && asked.push(`${r.method()} ${new URL(r.url()).pathname} ${r.postData() ?? ''}`));
    first.on('console', onConsole);
    first.on('request', onRequest);
    try {
      await first.goto(url(`/p/${projectId}/traces`));
      await first.locator('[data-trace-id="second-trace"]').waitFor();
      expect(asked.filter((a) => a.startsWith('GET /api/auth/session'))).toHaveLength(1);
      expect(asked.filter((a) => a.startsWith('POST /api/trace/search '))).toEqual(['POST /api/trace/search {"pageSize":100}']);
      // Both answers were taken by the app (none left waiting), and the page's policy let the script run.
      expect(await first.evaluate(() => (globalThis as unknown as { __spyglassEarly: unknown[] }).__spyglassEarly.length)).toBe(0);
      expect(problems).toEqual([]);
      // A filtered list is not guessed at: the app asks for it itself, once.
      asked.length = 0;
      await first.goto(url(`/p/${projectId}/traces?q=parcel`));
      await first.locator('[role=row][data-trace-id]').first().waitFor();
      expect(asked.filter((a) => a.startsWith('POST /api/trace/search '))).toHaveLength(1);
      expect(asked.find((a) => a.startsWith('POST /api/trace/search '))).toContain('"query":"parcel"');
    } finally {
      first.off('console', onConsole);
      first.off('request', onRequest);
      // Blank: the list would go on asking for new traces.
      await first.goto('about:blank');
    }
  });

  it('finds the trace by full-text search and by filters held in the URL', async () => {
    await page.getByLabel('Search traces').fill('where parcel');
    await page.waitForURL(/q=where/);
    await expect.poll(() => page.locator('[role=row][data-trace-id]').count()).toBe(1);
    expect(await page.locator('[role=row][data-trace-id]').first().textContent()).toContain('Where is my parcel');

    await page.getByRole('button', { name: 'Filters', exact: true }).click();
    await page.getByLabel('User id').fill('customer-829');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/user=customer-829/);
    await expect.poll(() => page.locator('[role=row][data-trace-id]').count()).toBe(1);
    // The filtered view is a link: a reload (or a colleague) gets the same view.
    await page.reload();
    await page.getByText('User: customer-829').waitFor();
    await expect.poll(() => page.locator('[role=row][data-trace-id]').count()).toBe(1);
    await openInApp(page, url(`/p/${projectId}/traces?user=nobody`));
    await page.getByText('No trace matches').waitFor();
    await page.getByRole('button', { name: 'Clear all' }).click();
    await expect.poll(() => page.locator('[role=row][data-trace-id]').count()).toBe(2);
    // The keyboard walks the rows: ↓ moves to the next row's link.
    await page.locator('[role=row][aria-rowindex="2"] a').focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { closest(s: string): { getAttribute(n: string): string } | null } } }).document.activeElement.closest('[role=row]')?.getAttribute('aria-rowindex'))).toBe('3');
  });

  it('opens the trace, selects the LLM span and shows the conversation and the tokens', async () => {
    const search = await web.request('POST', '/api/trace/search', { authToken: projectKey, body: { query: 'where parcel' } });
    const id = search.body.traces[0].trace_id as string;
    const detail = (await web.request('GET', `/api/trace/${id}`, { authToken: projectKey })).body;
    llmSpanId = detail.spans.find((s: { type: string }) => s.type === 'llm').span_id;
    await page.locator(`[data-trace-id="${id}"]`).click();
    await page.waitForURL(`**/traces/${id}`);
    await page.locator(`[role=treeitem][data-span-id="${llmSpanId}"]`).click();
    const chat = page.getByTestId('chat-view').first();
    await chat.waitFor();
    expect(await chat.textContent()).toContain('You are the parcel assistant.');
    expect(await chat.textContent()).toContain('Where is my parcel 4417?');
    expect(await page.getByTestId('span-tokens').textContent()).toContain('1240 prompt (1024 cached) · 38 completion');
    expect(await page.getByTestId('span-detail').textContent()).toContain('gpt-4o-mini');
    // Keyboard: up moves to the parent span, down comes back.
    await page.getByTestId('span-tree').focus();
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => page.locator('[role=treeitem][aria-selected=true]').getAttribute('data-span-id')).not.toBe(llmSpanId);
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.locator('[role=treeitem][aria-selected=true]').getAttribute('data-span-id')).toBe(llmSpanId);
    await accessible();
    await screenshot('trace');
  });

  it('annotates the trace and the selected span, and edits its own annotation', async () => {
    // Waits for the stored annotation in the list: a controlled textarea carries its value as
    // text too (React keeps defaultValue in step), so a bare getByText would find the form.
    const annotationShown = (text: string) => page.locator('[data-annotation-id]').filter({ hasText: text }).waitFor();
    await page.getByRole('tab', { name: 'Annotations' }).click();
    await page.getByRole('button', { name: 'Thumbs up' }).click();
    await page.getByLabel('Comment').fill('Right answer, quickly.');
    await page.getByRole('button', { name: 'Annotate trace' }).click();
    await annotationShown('Right answer, quickly.');
    await page.getByText('Span: chat gpt-4o-mini').click();
    await page.getByRole('button', { name: 'Thumbs down' }).click();
    await page.getByLabel('Comment').fill('Too many prompt tokens.');
    await page.getByRole('button', { name: 'Annotate span' }).click();
    await annotationShown('Too many prompt tokens.');
    const traceId = page.url().split('/traces/')[1].split('?')[0];
    const stored = (await web.request('GET', `/api/annotations/trace/${traceId}`, { authToken: projectKey })).body.data;
    expect(stored.map((a: { anchorKind: string | null; anchorId: string | null; isThumbsUp: boolean; email: string }) => [a.anchorKind, a.anchorId, a.isThumbsUp, a.email])).toEqual([
      [null, null, true, web.creds.user.email],
      ['span', llmSpanId, false, web.creds.user.email],
    ]);
    const own = page.locator(`[data-annotation-id="${stored[0].id}"]`);
    await own.getByRole('button', { name: 'Edit annotation' }).click();
    await page.getByLabel('Comment').last().fill('Right answer, quickly (edited).');
    await page.getByRole('button', { name: 'Save' }).click();
    await annotationShown('Right answer, quickly (edited).');
    await accessible();
    await screenshot('annotations');
  });

  it('shares the trace, shows it to a visitor without cookies, and withdraws it', async () => {
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Share and copy the link' }).click();
    const link = page.getByTestId('share-link');
    await link.waitFor();
    const shared = (await link.getAttribute('href'))!;
    expect(shared).toMatch(/\/share\/[A-Za-z0-9]{32}$/);

    const guest = await cookielessPage();
    expect(await guest.context().cookies()).toEqual([]);
    const response = await guest.goto(shared);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['x-robots-tag']).toContain('noindex');
    await guest.locator('#trace-input').waitFor();
    expect(await guest.textContent('#trace-input')).toContain('Where is my parcel 4417?');
    expect(await guest.textContent('#trace-output')).toContain('<b>tomorrow</b>'); // shown as text, never as markup
    expect(await guest.locator('#trace-output b').count()).toBe(0);
    expect(await guest.locator('a[href*="/p/"]').count()).toBe(0); // no way into the project
    expect(await guest.getByRole('tab', { name: 'Annotations' }).count()).toBe(0);
    await guest.locator(`[role=treeitem][data-span-id="${llmSpanId}"]`).click();
    await guest.getByTestId('chat-view').first().waitFor();
    await accessible(guest);
    await screenshot('shared-trace', guest);

    await page.getByRole('button', { name: 'Unshare' }).click();
    await page.getByRole('button', { name: 'Share', exact: true }).waitFor();
    const gone = await guest.goto(shared);
    expect(gone?.status()).toBe(404);
    await guest.getByText('Shared trace not found').waitFor();
    expect(await guest.locator('#trace-input').count()).toBe(0);
  });

  it('signs out, and the old session is refused', async () => {
    const cookie = (await context.cookies()).find((c) => c.name === 'spyglass_session')!;
    expect(cookie.httpOnly).toBe(true);
    await page.getByRole('button', { name: /^Account/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/signin/);
    const refused = await web.request('GET', '/api/auth/session', { headers: { cookie: `${cookie.name}=${cookie.value}` } });
    expect(refused.status).toBe(401);
    await page.goto(url(`/p/${projectId}/traces`));
    await page.waitForURL(/\/signin\?redirect=/);
  });

  it('an invited viewer sets a password, signs in with the viewer rights, and cannot annotate', async () => {
    const added = await web.request('POST', '/api/members', { token: web.creds.adminApiKey, body: { email: 'viewer@example.com', role: 'VIEWER' } });
    expect(added.status).toBe(200);
    const invite = new URL(added.body.invitation.url);
    // The browser the admin signed out of (no session left in it, the test before checks).
    const viewer = page;
    await viewer.goto(url(invite.pathname));
    await viewer.getByRole('heading', { name: /Join/ }).waitFor();
    await accessible(viewer);
    await screenshot('invitation', viewer);
    await viewer.getByLabel('Your name').fill('Vera Viewer');
    await viewer.locator('input[type=password]').nth(0).fill('viewer-password-1');
    await viewer.locator('input[type=password]').nth(1).fill('viewer-password-1');
    await viewer.getByRole('button', { name: 'Set password and sign in' }).click();
    await viewer.waitForURL(`**/p/${projectId}/traces`);
    await viewer.locator('[role=row][data-trace-id]').first().click();
    await viewer.getByRole('tab', { name: 'Annotations' }).click();
    await viewer.getByText('can read annotations but not add them').waitFor();
    expect(await viewer.getByRole('button', { name: /^Annotate/ }).count()).toBe(0);
    expect(await viewer.getByRole('button', { name: 'Edit annotation' }).count()).toBe(0);
    expect(await viewer.getByRole('button', { name: 'Share', exact: true }).isDisabled()).toBe(true);
    // The server refuses it too, whatever the page shows.
    const viewedTrace = new URL(viewer.url()).pathname.split('/traces/')[1];
    const status = await viewer.evaluate(async (trace) => {
      const session = (await (await fetch('/api/auth/session')).json()) as { csrfToken: string; projects: { id: string }[] };
      const res = await fetch(`/api/annotations/trace/${trace}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken, 'x-project-id': session.projects[0].id },
        body: JSON.stringify({ comment: 'sneaky', isThumbsUp: true }),
      });
      return res.status;
    }, viewedTrace);
    expect(status).toBe(403);

    // The reset link page of the same member (an admin issues it).
    const reset = await web.request('POST', `/api/members/${added.body.userId}/password-reset`, { token: web.creds.adminApiKey });
    expect(reset.status).toBe(200);
    await openInApp(viewer, url(new URL(reset.body.url).pathname));
    await viewer.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await accessible(viewer);
    await screenshot('reset-password', viewer);
  });
});
