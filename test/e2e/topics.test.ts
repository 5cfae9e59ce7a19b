import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startFakeServer, type FakeServer } from '../evaluators/fake-servers.ts';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, seriousViolations, openSignedIn } from '../support/browser.ts';
import { checkBothWidths } from '../support/both-widths.ts';
import { seeded, sentence, subjectTrace, SUBJECTS, topicModel } from '../topics/subjects.ts';

/**
 * Topics in a real browser: the embeddings model chosen in the app (a wrong one refused at its
 * field), topics found on traces of five known subjects (the loopback model's deterministic
 * embeddings), listed with their counts, trend and metrics as the API gives them, and a topic
 * opening the traces list filtered to it.
 */
describe.runIf(hasChromium)('topics in a real browser', () => {
  const kind = appDatabaseKinds[0];
  let web: TestApp;
  let fake: FakeServer;
  let browser: Browser;
  let page: Page;
  let failEmbeddings = false;
  const PER_SUBJECT = 25;
  const subjects = Object.keys(SUBJECTS);
  const api = (method: string, url: string, body?: unknown) => web.request(method, url, { authToken: web.creds.projectApiKey, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    fake = await startFakeServer();
    fake.fallback = topicModel(() => failEmbeddings);
    web = await startApp(kind);
    const provider = await web.request('POST', '/api/model-providers', {
      token: web.creds.adminApiKey,
      projectId: web.creds.project.id,
      body: { name: 'local', kind: 'openai_compatible', api_key: 'sk-local-topics', base_url: `${fake.url}/v1`, models: ['embed-small', 'namer'] },
    });
    expect(provider.status, provider.text).toBe(201);
    const next = seeded(3);
    const started = Date.now() - 2 * 3_600_000;
    let n = 0;
    for (const subject of subjects) {
      for (let i = 0; i < PER_SUBJECT; i++) {
        const res = await api('POST', '/api/collector', subjectTrace(`ui-${subject}-${i}`, sentence(subject, next), started + n++ * 1000));
        expect(res.status, res.text).toBe(200);
      }
    }
    browser = await workerBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(20_000);
    page = await context.newPage();
  }, 120_000);
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
    await fake?.close();
  });

  it('sets the embeddings model in the app, refusing a wrong one at its field', async () => {
    const projectId = web.creds.project.id;
    await openSignedIn(page, web.baseUrl, web.creds.user, `/p/${projectId}/topics`);
    await page.getByText('Topics are off').waitFor();

    const model = page.getByRole('combobox', { name: 'Embeddings model' });
    await model.fill('ghost/embed');
    await page.getByRole('button', { name: 'Save' }).click();
    // The refusal is shown at the field, and the field is marked invalid.
    await expect.poll(() => model.getAttribute('aria-invalid')).toBe('true');
    const described = (await model.getAttribute('aria-describedby')) ?? '';
    const errorId = described.split(' ').find((id) => id.includes('error'));
    expect(errorId, described).toBeTruthy();
    expect(await page.locator(`[id="${errorId}"]`).innerText()).toMatch(/embeddingsModel|provider/i);
    expect((await api('GET', '/api/topics/settings')).body.embeddingsModel).toBeNull();

    await model.fill('local/embed-small');
    await page.getByRole('combobox', { name: 'Naming model' }).fill('local/namer');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect((await api('GET', '/api/topics/settings')).body).toMatchObject({ embeddingsModel: 'local/embed-small', namingModel: 'local/namer' });
  }, 120_000);

  it('shows the topics found, with the counts, trend and metrics the API gives, at both widths', async () => {
    const projectId = web.creds.project.id;
    const total = subjects.length * PER_SUBJECT;
    for (let i = 0; i < 20; i++) {
      await web.app.services.topics.topics.runRounds(projectId);
      const status = (await api('GET', '/api/topics/settings')).body.status;
      if (status.embeddedTraces === total && status.builtTraces === total) break;
    }
    const listed = await api('GET', '/api/topics');
    expect(listed.body.status).toMatchObject({ builtTraces: total, lastError: null });
    const topics = listed.body.topics as { id: string; name: string; traces: number; error_rate: number | null }[];
    expect(topics.length).toBe(subjects.length);

    await page.reload();
    const table = page.getByTestId('topics-table');
    await table.locator('tr[data-topic-id]').first().waitFor();
    for (const topic of topics) {
      const row = table.locator(`tr[data-topic-id="${topic.id}"]`);
      await expect.poll(() => row.count()).toBe(1);
      const cells = await row.locator('td').allInnerTexts();
      expect(cells[0]).toContain(topic.name);
      expect(cells[1]).toMatch(new RegExp(`^${topic.traces}\\b`));
      expect(await row.getByRole('img', { name: `Traces per day of ${topic.name}` }).count()).toBe(1);
      expect(cells[3]).toContain(topic.error_rate === null ? '–' : '0 %');
    }
    // Each subject is one topic, named after it.
    expect(topics.map((x) => x.name.toLowerCase().split(' ')[0]).sort()).toEqual([...subjects].sort());
    await page.getByTestId('topics-built').filter({ hasText: `Found from ${total} traces` }).waitFor();

    await checkBothWidths(page, 'topics', () => page.locator('[data-topic-id]:visible').first().waitFor(), true);
  }, 180_000);

  it("opens a topic's traces: the traces list filtered by the topic", async () => {
    const topics = (await api('GET', '/api/topics')).body.topics as { id: string; name: string; traces: number }[];
    const topic = topics[0];
    await page.getByTestId('topics-table').getByRole('link', { name: topic.name }).click();
    await page.waitForURL(new RegExp(`/traces\\?.*topic=${topic.id}`));
    await page.getByText(`Topic: ${topic.name}`).first().waitFor();
    const rows = page.locator('[data-testid=traces-grid] [role=row][data-trace-id]');
    await rows.first().waitFor();
    const expected = ((await api('POST', '/api/trace/search', { filters: { topic: topic.id }, pageSize: 100 })).body.traces as { trace_id: string }[]).map((x) => x.trace_id).sort();
    expect(expected.length).toBe(topic.traces);
    await expect.poll(async () => (await rows.evaluateAll((els) => els.map((r) => r.getAttribute('data-trace-id') ?? ''))).sort()).toEqual(expected);
    expect(await seriousViolations(page)).toEqual([]);
  }, 120_000);
  it('charts topics on a dashboard: a series per topic, named, whose cells open that topic\'s traces', async () => {
    const projectId = web.creds.project.id;
    const made = await api('PUT', '/api/dashboards/by-topic', {
      name: 'By topic',
      timeRange: { last: '24h' },
      charts: [{ id: 'topics', title: 'Traces per topic', metric: 'traces', display: 'table', groupBy: 'topic', interval: 'day', layout: { x: 0, y: 0, w: 12, h: 6 } }],
    });
    expect(made.status, made.text).toBe(200);
    const chartData = (await api('POST', '/api/dashboards/by-topic/charts/topics/data', {})).body as { query: Record<string, unknown>; series: { group: string; total: number }[] };
    const analytics = (await api('POST', '/api/analytics/timeseries', chartData.query)).body as { series: { group: string; buckets: { traces: number }[] }[] };
    const topics = (await api('GET', '/api/topics')).body.topics as { id: string; name: string; traces: number }[];
    // One series per topic, each the analytics API's count and the topics list's.
    expect(chartData.series.map((x) => x.group).sort()).toEqual(topics.map((x) => x.id).sort());
    for (const topic of topics) {
      const a = analytics.series.find((x) => x.group === topic.id)!;
      expect([chartData.series.find((x) => x.group === topic.id)!.total, a.buckets.reduce((n, b) => n + b.traces, 0)]).toEqual([topic.traces, topic.traces]);
    }

    await page.goto(`${web.baseUrl}/p/${projectId}/dashboards/by-topic`);
    const table = page.getByTestId('chart-table-topics');
    await table.waitFor();
    // The columns are the topics' names, not their ids.
    await expect.poll(async () => (await table.locator('thead th').allTextContents()).slice(1).sort()).toEqual(topics.map((x) => x.name).sort());
    const heads = (await table.locator('thead th').allTextContents()).slice(1);
    const column = heads.indexOf(topics[0].name);
    // The column adds up to the topic's traces; its fullest day opens as that topic's traces of that day.
    const values = (await table.locator('tbody tr').evaluateAll((trs, col) => trs.map((tr) => Number(tr.querySelectorAll('td[data-value]')[col].getAttribute('data-value') || 0)), column));
    expect(values.reduce((n, v) => n + v, 0)).toBe(topics[0].traces);
    const fullest = values.indexOf(Math.max(...values));
    await table.locator('tbody tr').nth(fullest).locator('td[data-value]').nth(column).locator('a').click();
    await page.waitForURL(new RegExp(`/traces\\?.*topic=${topics[0].id}`));
    await page.getByText(`Topic: ${topics[0].name}`).first().waitFor();
    const rows = page.locator('[data-testid=traces-grid] [role=row][data-trace-id]');
    await expect.poll(() => rows.count()).toBe(values[fullest]);
  }, 120_000);

  it('says when the topics were last found and why not since, while the embeddings model fails; traces still arrive', async () => {
    const projectId = web.creds.project.id;
    const before = (await api('GET', '/api/topics/settings')).body.status as { builtAt: number; embeddedTraces: number };
    failEmbeddings = true;
    try {
      const res = await api('POST', '/api/collector', subjectTrace('ui-late-weather', sentence('weather', seeded(77)), Date.now()));
      expect(res.status, res.text).toBe(200);
      await web.app.services.topics.topics.runRounds(projectId);
      const status = (await api('GET', '/api/topics/settings')).body.status;
      expect(status).toMatchObject({ builtAt: before.builtAt, embeddedTraces: before.embeddedTraces });
      expect(status.lastError).toMatch(/embedding new traces failed/);
      // The trace is stored and listed all the same.
      expect((await api('GET', '/api/trace/ui-late-weather')).status).toBe(200);

      await page.goto(`${web.baseUrl}/p/${projectId}/topics`);
      const alert = page.getByTestId('topics-error');
      await alert.waitFor();
      expect(await alert.innerText()).toMatch(/Not updated since .*ago/s);
      expect(await alert.innerText()).toContain(status.lastError);
      await page.getByTestId('topics-built').filter({ hasText: `${before.embeddedTraces} traces embedded` }).waitFor();
      await checkBothWidths(page, 'topics-failing', () => alert.waitFor(), true);
    } finally {
      failEmbeddings = false;
    }
    // The model answers again: the trace is embedded and the warning goes.
    await web.app.services.topics.topics.runRounds(projectId);
    const after = (await api('GET', '/api/topics/settings')).body.status;
    expect(after).toMatchObject({ embeddedTraces: before.embeddedTraces + 1, lastError: null });
    await page.reload();
    await page.getByTestId('topics-built').filter({ hasText: `${before.embeddedTraces + 1} traces embedded` }).waitFor();
    expect(await page.getByTestId('topics-error').count()).toBe(0);
  }, 120_000);
});
