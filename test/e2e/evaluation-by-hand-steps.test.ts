import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, signInContext, openInApp } from '../support/browser.ts';
import { closeSections, sections } from '../support/sections.ts';
import { checkBothWidths } from '../support/both-widths.ts';
import { agentTrace } from '../support/sample-traces.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { startFakeServer, textReply, toolCallReply, type FakeServer } from '../evaluators/fake-servers.ts';

const HOUR = 3_600_000;

/**
 * Steps of evaluation by hand, each named by its number in the walk that found it, in Debian's
 * Chromium against a loopback OpenAI-compatible server without authentication: a provider added
 * without a key, whose own models every model picker offers (17); a score config and an
 * experiment setup refused at their fields, in words (16); a monitor whose judge gives scores
 * showing their mean, percentiles and distribution, and one giving labels counting each (12); a
 * traces list whose first page index.html asked for, once (first load); a custom judge's "Try it"
 * taking text as text and JSON only where the variable is JSON (13); and the smaller ones (18).
 */
describe.runIf(hasChromium).each(appDatabaseKinds)('evaluation by hand, step by step in a real browser (%s)', (kind) => {
  let web: TestApp;
  let fake: FakeServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectId = '';
  let key = '';
  const shots = kind === appDatabaseKinds[0];
  // The server's clock starts 3 hours ago: two batches of results 2 hours apart fall in two hours of "Last 24 hours".
  const clock = new ManualClock(new Date(Date.now() - 3 * HOUR));
  // The judge's answers, by the trace it is asked about (its output text "answer <n>").
  const LABEL = (n: number) => (n <= 2 ? 'rude' : n === 3 ? 'neutral' : 'friendly');

  beforeAll(async () => {
    fake = await startFakeServer();
    fake.fallback = (req) => {
      if (req.method === 'GET' && req.path === '/v1/models') return { kind: 'json', body: { object: 'list', data: ['gpt-4o-mini', 'judge-large', 'qwen-local'].map((id) => ({ id, object: 'model' })) } };
      // A prompt target's call (no tool to fill): the answer the exact-match rows expect.
      if (!req.body?.tools) return textReply('Paris');
      if (JSON.stringify(req.body).includes('Tone wanted')) return toolCallReply('verdict', { reasoning: 'r', passed: true });
      const n = Number(/answer (\d)/.exec(JSON.stringify(req.body))?.[1] ?? 1);
      return JSON.stringify(req.body).includes('"label"') ? toolCallReply('evaluation', { reasoning: 'r', label: LABEL(n) }) : toolCallReply('evaluation', { reasoning: 'r', final_score: n });
    };
    web = await startApp(kind, { clock });
    projectId = web.creds.project.id;
    key = web.creds.projectApiKey;
    browser = await workerBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signInContext(page.context(), web.baseUrl, web.creds.user);
  }, 180_000);
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
    await fake?.close();
  });

  const project = (p: string) => `${web.baseUrl}/p/${projectId}${p}`;
  const shot = (name: string) => (kind === appDatabaseKinds[0] ? name : `${name}-${kind}`);
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await web.request(method, p, { authToken: key, body });
    expect(res.status, res.text).toBeLessThan(300);
    return res.body;
  };

  it('17. an OpenAI-compatible server is added without a key (the field says so); its own models are offered wherever a model is chosen', async () => {
    await openInApp(page, project('/settings/model-providers'));
    await page.getByRole('button', { name: 'Add provider' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a model provider' });
    await dialog.getByRole('textbox', { name: /^Name/ }).fill('local');
    await dialog.getByRole('combobox', { name: 'Kind', exact: true }).click();
    await page.getByRole('option', { name: 'OpenAI-compatible server' }).click();
    const apiKey = dialog.getByLabel('API key');
    expect(await apiKey.getAttribute('required')).toBeNull();
    const keyHelp = await apiKey.getAttribute('aria-describedby');
    expect(await dialog.locator(`[id="${keyHelp?.split(' ').find((id) => id.endsWith('-description'))}"]`).textContent()).toContain('Optional: leave empty for a server without authentication');
    await dialog.getByRole('textbox', { name: /^Base URL/ }).fill(`${fake.url}/v1`);
    // "Load models": the server's own list, asked for through Spyglass without any key.
    await dialog.getByRole('button', { name: 'Load models' }).click();
    await dialog.getByText('3 models listed by the server').waitFor();
    const models = dialog.getByRole('combobox', { name: /^Models/ });
    await models.click();
    await page.getByRole('option', { name: 'gpt-4o-mini' }).click();
    await models.click();
    await page.getByRole('option', { name: 'judge-large' }).click();
    await page.keyboard.press('Escape');
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText(/· no key/).first().waitFor();
    const asked = fake.requests.filter((r) => r.method === 'GET' && r.path === '/v1/models');
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((r) => !r.headers.authorization)).toBe(true);

    // qwen-local was not picked when the provider was set: only the server's live list has it.
    const offers = async (picker: ReturnType<Page['getByRole']>) => {
      await picker.click();
      // The picker filters by what is typed (a model already set would hide the rest).
      await picker.fill('qwen');
      await page.getByRole('option', { name: 'local/qwen-local' }).click();
      expect(await picker.inputValue()).toBe('local/qwen-local');
    };
    // A monitor's judge.
    await openInApp(page, project('/monitors/new?evaluator=llm/llm_score'));
    await offers(page.getByRole('combobox', { name: /^model/i }));
    // A custom judge.
    await openInApp(page, project('/evaluators/new'));
    await offers(page.getByRole('combobox', { name: 'Model' }));
    // The playground of a prompt.
    const prompt = await call('POST', '/api/prompts', { handle: 'picker/reply', prompt: 'Answer {{question}}', inputs: [{ identifier: 'question', type: 'str' }], model: 'local/gpt-4o-mini' });
    await openInApp(page, project(`/prompts/${prompt.id}?tab=preview`));
    await offers(page.getByRole('combobox', { name: 'Model' }).first());
    // An experiment's target.
    await call('POST', '/api/dataset', { name: 'Picker questions', columnTypes: [{ name: 'question', type: 'string' }] });
    await openInApp(page, project('/experiments'));
    await page.getByLabel('New experiment').fill('Picker check');
    await page.getByRole('button', { name: 'Set it up' }).click();
    await page.waitForURL('**/experiments/picker-check/setup**');
    await page.getByRole('combobox', { name: 'Prompt', exact: true }).selectOption('picker/reply');
    await offers(page.getByRole('combobox', { name: 'Model', exact: true }));
  });

  it('16. a score config refused by the API says why next to its field, in words, not as API text at the bottom of the form', async () => {
    await openInApp(page, project('/queues'));
    const form = page.getByRole('form', { name: 'New score config' });
    await form.getByLabel('Name').fill('Quality');
    await form.getByLabel('From').fill('5');
    await form.getByLabel('To').fill('1');
    await form.getByRole('button', { name: 'Add score' }).click();
    const to = form.getByLabel('To');
    await expect.poll(async () => to.getAttribute('aria-invalid')).toBe('true');
    const help = (await to.getAttribute('aria-describedby')) ?? '';
    const errorId = help.split(' ').find((id) => id.endsWith('-error'));
    expect(await form.locator(`[id="${errorId}"]`).textContent()).toMatch(/greater than min/i);
    // Nothing of the API's own form of the refusal anywhere in the form.
    expect(await form.textContent()).not.toMatch(/body\.max/);
    expect(await form.getByRole('alert').count()).toBe(0);
    await form.getByLabel('To').fill('10');
    await form.getByRole('button', { name: 'Add score' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Score configs' }).getByText('Quality').isVisible()).toBe(true);
  });

  it('12. a monitor whose judge gives scores shows their mean, median, 90th percentile, lowest and highest over time, and their distribution; a labelling one counts each label', async () => {
    const scores = await call('POST', '/api/monitors', { name: 'Helpfulness', evaluator: 'llm/llm_score', settings: { model: 'local/judge-large' } });
    const labels = await call('POST', '/api/monitors', {
      name: 'Tone',
      evaluator: 'llm/llm_category',
      settings: { model: 'local/judge-large', categories: [{ name: 'rude', description: 'r' }, { name: 'neutral', description: 'n' }, { name: 'friendly', description: 'f' }] },
    });
    const batch = async (ns: number[], from: number) => {
      for (const [i, n] of ns.entries()) {
        const t = clock.now().getTime();
        await call('POST', '/api/collector', { trace_id: `judged-${from + i}`, spans: [{ span_id: `judged-${from + i}-1`, type: 'llm', input: { type: 'text', value: 'Where is my parcel?' }, output: { type: 'text', value: `answer ${n}` }, timestamps: { started_at: t - 1000, finished_at: t - 900 } }] });
      }
      clock.advance(31_000);
      await web.app.services.jobs.runDue();
    };
    // 3 hours ago: 1, 2, 2, 3; an hour ago: 3, 4, 4, 5, 5, 5.
    await batch([1, 2, 2, 3], 0);
    clock.advance(2 * HOUR);
    await batch([3, 4, 4, 5, 5, 5], 10);

    await openInApp(page, project(`/monitors/${scores.id}`));
    await page.getByRole('heading', { name: 'Scores over time' }).waitFor();
    const stat = (id: string) => page.getByTestId(id).textContent();
    // Of all ten: mean 3.4; median (3 + 4) / 2; the 90th percentile 5; lowest 1, highest 5.
    expect(await stat('monitor-mean')).toBe('3.4');
    expect(await stat('monitor-median')).toBe('3.5');
    expect(await stat('monitor-p90')).toBe('5');
    expect(await stat('monitor-range')).toBe('1 – 5');
    expect(await stat('monitor-scored')).toBe('10');
    expect(await page.getByTestId('monitor-pass-rate').count()).toBe(0);
    // Over time: each hour's numbers, newest first.
    await page.getByText(/In numbers, per interval \(2\)/).click();
    const rows = await page
      .getByTestId('monitor-score-intervals')
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)));
    expect(rows).toEqual([
      ['6', '4.33', '4.5', '5', '3', '5'],
      ['4', '2', '2', '2.7', '1', '3'],
    ]);
    // The bars: one per hour, two of them with scores.
    expect(await page.locator('.score-bars .score-box').count()).toBe(2);
    // The distribution: one bin per score.
    const bins = await page.getByTestId('monitor-distribution').locator('li').evaluateAll((lis) => lis.map((li) => li.getAttribute('aria-label')));
    expect(bins).toEqual(['1: 1 of 10', '2: 2 of 10', '3: 2 of 10', '4: 2 of 10', '5: 3 of 10']);
    await checkBothWidths(page, shot('monitor-scores'), () => page.getByTestId('monitor-distribution').waitFor(), shots);

    await openInApp(page, project(`/monitors/${labels.id}`));
    await page.getByRole('heading', { name: 'Labels over time' }).waitFor();
    const counts = await page.getByTestId('monitor-labels').locator('.stat').evaluateAll((s) => s.map((e) => `${e.querySelector('.stat-label')?.textContent}: ${e.querySelector('.stat-value')?.textContent}`));
    expect(counts).toEqual(['friendly: 5', 'rude: 3', 'neutral: 2']);
    await checkBothWidths(page, shot('monitor-labels'), () => page.getByTestId('monitor-labels').waitFor(), shots);
  });

  it("3. a filtered, sorted traces list opened afresh draws the first page index.html asked for before the app's code ran, and searches once", async () => {
    const now = clock.now().getTime();
    for (let i = 0; i < 6; i++) await call('POST', '/api/collector', agentTrace(`list-${i}`, now - i * 60_000, { labels: i % 2 ? ['support', 'refund'] : ['support'], failTool: i < 3 }));
    const fresh = await context.newPage();
    const searches: string[] = [];
    let searched = () => {};
    const firstSearch = new Promise<void>((resolve) => (searched = resolve));
    fresh.on('request', (r) => {
      if (r.method() !== 'POST' || new URL(r.url()).pathname !== '/api/trace/search') return;
      searches.push(r.postData() ?? '');
      searched();
    });
    // The app's entry is held until a search was sent (or 20 s): one sent before it came from index.html's script.
    let beforeEntry = false;
    await fresh.route(/\/assets\/index-[^/]*\.js$/, async (route) => {
      beforeEntry = await Promise.race([firstSearch.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20_000))]);
      await route.continue();
    });
    await fresh.goto(project('/traces?labels=refund&range=7d&sort=latency&dir=asc'));
    const rows = fresh.locator('[role=row][data-trace-id]');
    await expect.poll(() => rows.evaluateAll((r) => r.map((e) => e.getAttribute('data-trace-id')).sort())).toEqual(['list-1', 'list-3', 'list-5']);
    await fresh.waitForTimeout(1500);
    expect(beforeEntry, "no search before the app's entry").toBe(true);
    expect(searches.length, JSON.stringify(searches)).toBe(1);
    expect(JSON.parse(searches[0])).toMatchObject({ filters: { labels: ['refund'] }, sortBy: 'latency', sortDirection: 'asc', pageSize: 100, startDate: expect.any(Number) });
    await fresh.close();
  });

  /** What a form field's error says (the element its aria-describedby names `...-error`), or null when it has none. */
  const errorOf = async (field: ReturnType<Page['getByRole']>) => {
    const id = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').find((i) => i.endsWith('-error'));
    return id ? page.locator(`[id="${id}"]`).textContent() : null;
  };

  it('13. a custom judge\'s "Try it" takes plain text in a text variable and JSON only where the variable is JSON; each variable the prompt uses is marked required', async () => {
    await call('POST', '/api/custom-evaluators', { slug: 'tone-check', name: 'Tone check', prompt: 'Conversation: {{conversation}}\nAnswer: {{output}}\nTone wanted: {{tone}}', model: 'local/judge-large', answer: { type: 'pass_fail' } });
    await page.goto(project('/evaluators/custom/tone-check/edit'));
    await page.getByRole('tab', { name: 'Try it' }).click();
    const field = (name: string) => page.getByRole('textbox', { name: new RegExp(`^${name}`) });
    for (const name of ['conversation', 'output', 'tone']) expect(await page.locator(`label[for="${await field(name).getAttribute('id')}"]`).textContent(), name).toMatch(/\*$/);
    // Text, even text that looks like the start of JSON, is taken as it is.
    await field('output').fill('Thank you for asking, it arrives today.');
    await field('tone').fill('{ friendly, not curt');
    for (const name of ['output', 'tone']) {
      expect(await field(name).getAttribute('aria-invalid'), name).not.toBe('true');
      expect(await errorOf(field(name)), name).toBeNull();
    }
    // The conversation is a list of messages: JSON, and text that is not JSON is said to be so at it.
    await field('conversation').fill('Where is my parcel?');
    await expect.poll(() => field('conversation').getAttribute('aria-invalid')).toBe('true');
    expect(await errorOf(field('conversation'))).toMatch(/JSON/);
    await field('conversation').fill('[{"role": "user", "content": "Where is my parcel?"}]');
    await expect.poll(() => errorOf(field('conversation'))).toBeNull();
    const judged = () => fake.requests.filter((r) => r.method === 'POST' && JSON.stringify(r.body).includes('Tone wanted'));
    await page.getByRole('button', { name: 'Run version 1' }).click();
    await page.getByTestId('evaluation-result').getByText('processed').waitFor();
    const sent = JSON.stringify(judged().at(-1)?.body.messages);
    expect(sent).toContain('Answer: Thank you for asking, it arrives today.');
    expect(sent).toContain('Tone wanted: { friendly, not curt');
    expect(sent).toContain('Where is my parcel?');
  });

  it('18. smaller: the empty experiments page tells of server runs; a word in a number cell says why; a queue needs a score; a view name taken is said once; the Error header is whole; the phone navigation reaches every section; an evaluator has one name on every page', async () => {
    const soft = expect.soft;
    // The experiments page before there is one: runs set up in the app, and the SDK.
    await openInApp(page, project('/experiments'));
    const empty = page.getByRole('alert').filter({ hasText: 'No experiments yet' });
    await empty.waitFor();
    soft(await empty.textContent(), 'empty experiments page').toMatch(/Name one under New experiment and set it up.*the app runs it.*SDK/s);

    // A number cell given a word: refused, and why, tied to the cell's editor.
    const dataset = await call('POST', '/api/dataset', { name: 'Capitals', columnTypes: [{ name: 'question', type: 'string' }, { name: 'expected_output', type: 'string' }, { name: 'score', type: 'number' }] });
    await call('POST', `/api/dataset/${dataset.slug}/records`, { entries: [{ question: 'Capital of France?', expected_output: 'Paris', score: 2 }] });
    await openInApp(page, project(`/datasets/${dataset.id}`));
    const scoreCell = page.getByTestId('dataset-grid').locator('[data-cell="0:2"]');
    await scoreCell.dblclick();
    const editor = page.getByLabel('Edit score (number)');
    await editor.fill('three');
    await page.keyboard.press('Enter');
    await expect.poll(() => editor.getAttribute('aria-invalid')).toBe('true');
    soft(await errorOf(editor), 'a word in a number cell').toMatch(/“three” is not a number: this column takes numbers such as 3 or 2\.5/);
    await page.keyboard.press('Escape');
    await expect.poll(() => scoreCell.textContent()).toBe('2');
    await checkBothWidths(page, shot('dataset-capitals'), () => scoreCell.waitFor(), shots);

    // A review queue without a score: refused before anything is sent, said at the scores.
    await openInApp(page, project('/queues'));
    await page.getByRole('button', { name: 'New queue' }).click();
    const queueDialog = page.getByRole('dialog', { name: 'New review queue' });
    await queueDialog.getByRole('textbox', { name: /^Name/ }).fill('Nothing to score');
    await queueDialog.getByRole('button', { name: 'Create queue' }).click();
    const scores = queueDialog.getByRole('combobox', { name: /^Scores to fill in/ });
    await expect.poll(() => scores.getAttribute('aria-invalid')).toBe('true');
    // (Without any score config the words point to where one is defined.)
    soft(await errorOf(scores), 'a queue without a score').toMatch(/^(Choose at least one score for reviewers to fill in|Define a score config first \(below the queues\): reviewers give a value for each)\.$/);
    soft((await call('GET', '/api/queues')).data.map((q: { name: string }) => q.name), 'queues').not.toContain('Nothing to score');
    await queueDialog.getByRole('button', { name: 'Cancel' }).click();
    await queueDialog.waitFor({ state: 'detached' });

    // A saved view's name used again: said once, next to the name.
    await openInApp(page, project('/traces'));
    const grid = page.getByTestId('traces-grid');
    await grid.locator('.list-head').waitFor();
    for (const attempt of [1, 2]) {
      await page.getByTestId('save-view').click();
      await page.getByRole('dialog').getByLabel('Name').fill('Refunds');
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      if (attempt === 1) {
        await expect.poll(() => page.url()).toContain('view=view_');
        await page.getByRole('dialog').waitFor({ state: 'hidden' });
      }
    }
    const taken = page.getByText('already has a view named', { exact: false });
    await taken.first().waitFor();
    soft(await taken.count(), 'a view name taken, said').toBe(1);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });

    // The Error header at 1280 px: whole, not "Err…".
    const errorHeader = grid.locator('.list-head [role=columnheader]', { hasText: /^Error/ });
    soft(await errorHeader.textContent(), 'the Error header').toMatch(/^Error/);
    // The word's width as drawn in the header's font against the room the header gives it: an
    // ellipsis cuts a fraction of a pixel too, which scrollWidth (whole pixels) does not show.
    const errorWord = await errorHeader.evaluate((h) => {
      const style = h.ownerDocument.defaultView!.getComputedStyle(h);
      const context = h.ownerDocument.createElement('canvas').getContext('2d')!;
      context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      return { needs: context.measureText(h.textContent ?? '').width, room: h.getBoundingClientRect().width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) };
    });
    soft(errorWord.needs, `the Error header, cut (${errorWord.room} px for it)`).toBeLessThanOrEqual(errorWord.room);

    // On a phone the top navigation's menu puts every section on the screen, none hidden in a scroll.
    await page.setViewportSize({ width: 390, height: 844 });
    const nav = await sections(page);
    soft(await nav.evaluate((n) => n.scrollWidth - n.clientWidth), 'the phone navigation, hidden width').toBeLessThanOrEqual(0);
    const unreachable = await nav.getByRole('link').evaluateAll((links) =>
      links
        .filter((a) => {
          const r = a.getBoundingClientRect();
          const hit = a.ownerDocument.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return r.left < 0 || r.right > a.ownerDocument.documentElement.clientWidth || !hit || !(a === hit || a.contains(hit));
        })
        .map((a) => a.textContent),
    );
    soft(unreachable, 'sections out of reach on a phone').toEqual([]);
    soft(await nav.getByRole('link').count(), 'sections').toBeGreaterThan(8);
    await closeSections(page);
    await page.setViewportSize({ width: 1280, height: 800 });

    // "Exact match" on every page that names checks/exact_match; its path only as a secondary title.
    const monitor = await call('POST', '/api/monitors', { name: 'Exact answers', evaluator: 'checks/exact_match' });
    await call('POST', '/api/prompts', { handle: 'capitals/reply', prompt: 'Answer with the city only.', messages: [{ role: 'user', content: '{{question}}' }], inputs: [{ identifier: 'question', type: 'str' }], model: 'local/gpt-4o-mini' });
    await call('PUT', '/api/experiments/capitals/definition', {
      name: 'Capitals',
      dataset: { id: dataset.slug },
      targets: [{ id: 'reply', type: 'prompt', prompt: 'capitals/reply' }],
      evaluators: [{ id: 'exact', evaluator: 'checks/exact_match' }],
    });
    // Each page names it once the catalogue has come (until then, the path): read it when it settles.
    const settled = async (read: () => Promise<string | null>) => {
      const until = Date.now() + 10_000;
      let said = await read().catch(() => null);
      while (said !== 'Exact match' && !said?.startsWith('Exact match (') && Date.now() < until) {
        await page.waitForTimeout(250);
        said = await read().catch(() => null);
      }
      return said;
    };
    const named: Record<string, string | null> = {};
    await openInApp(page, project('/evaluators'));
    named['evaluators list'] = await settled(() => page.locator('[data-evaluator="checks/exact_match"] .card-title').textContent({ timeout: 1000 }));
    await openInApp(page, project('/evaluators/checks/exact_match'));
    named['evaluator page'] = await settled(() => page.getByRole('heading', { level: 1 }).textContent({ timeout: 1000 }));
    await openInApp(page, project('/monitors'));
    named['monitors list'] = await settled(() => page.getByRole('row').filter({ hasText: 'Exact answers' }).locator('td[title="checks/exact_match"]').textContent({ timeout: 1000 }));
    await openInApp(page, project(`/monitors/${monitor.id}`));
    named['monitor page'] = await settled(() => page.locator('a[title="checks/exact_match"]').textContent({ timeout: 1000 }));
    await openInApp(page, project('/experiments/capitals/setup'));
    named['experiment setup'] = await settled(() =>
      page.getByRole('combobox', { name: 'Evaluator', exact: true }).evaluate((s) => (s as unknown as { selectedOptions: { textContent: string | null }[] }).selectedOptions[0]?.textContent ?? null, undefined, { timeout: 1000 }),
    );
    const run = await call('POST', '/api/experiments/capitals/run', {});
    await openInApp(page, project(`/experiments/capitals?runId=${run.runId}`));
    await page.getByText('completed', { exact: true }).first().waitFor({ timeout: 60_000 });
    const runGrid = page.getByTestId('run-grid');
    await runGrid.locator('[data-row-index="0"]').waitFor();
    named['run page'] = await settled(async () => (await runGrid.getByRole('columnheader').allTextContents()).find((h) => /exact/i.test(h)) ?? null);
    expect(named).toEqual({
      'evaluators list': 'Exact match',
      'evaluator page': 'Exact match',
      'monitors list': 'Exact match',
      'monitor page': 'Exact match',
      'experiment setup': 'Exact match (checks/exact_match)',
      'run page': 'Exact match',
    });
  });

  it('16. an experiment setup refused by the API says each problem next to its field, in words: a target without a prompt, a variable mapped to nothing', async () => {
    await call('POST', '/api/prompts', { handle: 'setup/reply', prompt: 'Answer with the city only.', messages: [{ role: 'user', content: 'Answer {{query}}' }], inputs: [{ identifier: 'query', type: 'str' }], model: 'local/gpt-4o-mini' });
    await openInApp(page, project('/experiments'));
    await page.getByLabel('New experiment').fill('Setup errors');
    await page.getByRole('button', { name: 'Set it up' }).click();
    await page.waitForURL('**/experiments/setup-errors/setup**');
    const form = page.locator('form.setup-form');
    const save = form.getByRole('button', { name: 'Save', exact: true });
    const datasetField = form.getByRole('combobox', { name: 'Dataset', exact: true });
    const promptField = form.getByRole('combobox', { name: 'Prompt', exact: true });
    await datasetField.waitFor();
    // No prompt chosen: said at the prompt.
    await save.click();
    await expect.poll(() => promptField.getAttribute('aria-invalid')).toBe('true');
    expect(await errorOf(promptField)).toBe('Required.');
    const noApiText = async () => {
      expect(await form.textContent()).not.toMatch(/body\.|Too small|expected string|dataset\.<column>|\{"/);
      expect(await form.getByRole('alert').count()).toBe(0);
    };
    await noApiText();
    await checkBothWidths(page, shot('setup-refused'), () => form.getByText('Required.').first().waitFor(), shots);

    // A prompt whose variable has no column of its name, saved unmapped: said at the variable's picker.
    await datasetField.selectOption('capitals');
    await promptField.selectOption('setup/reply');
    const source = form.getByRole('combobox', { name: 'Source of variable query' });
    await source.waitFor();
    // The form already marks the picker; what is checked is the API's refusal, once it has come.
    const refused = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().includes('/api/experiments/setup-errors/definition'));
    await save.click();
    expect((await refused).status()).toBe(400);
    await expect.poll(() => promptField.getAttribute('aria-invalid')).not.toBe('true');
    await expect.poll(() => source.getAttribute('aria-invalid')).toBe('true');
    expect(await errorOf(source)).toBe('The dataset has no column of this name: choose one, or a constant.');
    await noApiText();
    await source.selectOption('dataset.question');
    await save.click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    expect(await source.getAttribute('aria-invalid')).not.toBe('true');
    await expect.poll(() => form.getByTestId('rendered-prompt').textContent()).toBe('system: Answer with the city only.\n\nuser: Answer Capital of France?');
    await checkBothWidths(page, shot('setup-mapped'), () => form.getByTestId('rendered-prompt').waitFor(), shots);
  });
});
