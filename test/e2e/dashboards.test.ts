import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page, Response } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, openInApp, openSignedIn, signInContext } from '../support/browser.ts';
import { sections } from '../support/sections.ts';
import { checkBothWidths } from '../support/both-widths.ts';
import { widerThanScreen } from '../support/phone-width.ts';
import { inviteAndAccept } from '../support/sessions.ts';

const HOUR = 3_600_000;

/**
 * A dashboard built in the browser: charts added, one dragged to another place and one
 * resized by pointer, saved, still there after a reload and for another member; every
 * number shown is the analytics API's for the chart's query; a table cell opens its traces.
 */
describe.runIf(hasChromium)('dashboards in a real browser', () => {
  const kind = appDatabaseKinds[0];
  let web: TestApp;
  let browser: Browser;
  let page: Page;
  const now = Date.now();

  beforeAll(async () => {
    web = await startApp(kind);
    const traces = [
      { id: 'dash-1', model: 'gpt-4o-mini', user: 'ada', cost: 0.01, error: false, ago: 1 },
      { id: 'dash-2', model: 'gpt-4o-mini', user: 'bob', cost: 0.02, error: true, ago: 2 },
      { id: 'dash-3', model: 'claude-3-5-haiku', user: 'ada', cost: 0.04, error: false, ago: 3 },
      { id: 'dash-4', model: 'claude-3-5-haiku', user: 'cy', cost: 0.08, error: true, ago: 5 },
      { id: 'dash-5', model: 'gpt-4o-mini', user: 'ada', cost: 0.16, error: false, ago: 7 },
    ];
    for (const t of traces) {
      const at = now - t.ago * HOUR;
      const res = await web.request('POST', '/api/collector', {
        token: web.creds.projectApiKey,
        body: {
          trace_id: t.id,
          metadata: { user_id: t.user },
          spans: [
            {
              span_id: `${t.id}-1`,
              type: 'llm',
              model: t.model,
              input: { type: 'text', value: 'q' },
              output: { type: 'text', value: 'a' },
              metrics: { prompt_tokens: 10, completion_tokens: 5, cost: t.cost },
              ...(t.error ? { error: { message: 'upstream 500' } } : {}),
              timestamps: { started_at: at, finished_at: at + 200 },
            },
          ],
        },
      });
      expect(res.status, res.text).toBe(200);
    }
    browser = await workerBrowser();
    page = await newPage();
  }, 120_000);
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(20_000);
    return context.newPage();
  }

  /** A second member of the project, who signs in. */
  const member = { email: 'mo@example.com', password: 'member-password-1' };
  let membersPage: Promise<Page> | undefined;
  /**
   * The member's page, signed in (nothing opened yet when new): the first test that needs it
   * invites the member and makes it; the later ones go on in it (a new context and page cost
   * Chromium about 3 s).
   */
  function memberPage(): Promise<Page> {
    membersPage ??= (async () => {
      const accepted = await inviteAndAccept(web, web.creds.adminApiKey, { ...member, role: 'MEMBER' });
      expect(accepted.userId).toBeTruthy();
      const p = await newPage();
      await signInContext(p.context(), web.baseUrl, member);
      return p;
    })();
    return membersPage;
  }

  /** The chart data answers the page gets, by chart id (the last one of each). */
  function watchCharts(p: Page): Map<string, { chart: { metric: string }; query: Record<string, unknown>; value: number | null; series: { name: string; points: { start: number; value: number | null }[] }[] }> {
    const seen = new Map();
    p.on('response', (r: Response) => {
      const m = /\/api\/dashboards\/[^/]+\/charts\/([^/]+)\/data$/.exec(new URL(r.url()).pathname);
      // A body gone with the page that asked for it (the test moved on) is not waited for.
      if (m && r.status() === 200) r.json().then((body) => seen.set(decodeURIComponent(m[1]), body), () => undefined);
    });
    return seen;
  }

  const grid = (p: Page) => p.getByTestId('dashboard-grid');
  const chartBox = (p: Page, title: string) => grid(p).getByRole('region', { name: title, exact: true });
  const layoutOf = (p: Page, title: string) => chartBox(p, title).getAttribute('data-layout');

  /** Drags a handle by whole grid cells with the mouse (pointer events), as a person does. */
  async function dragBy(p: Page, handle: string, cols: number, rows: number) {
    const box = (await grid(p).boundingBox())!;
    const col = (box.width + 12) / 12;
    await p.getByRole('button', { name: handle }).scrollIntoViewIfNeeded();
    const h = (await p.getByRole('button', { name: handle }).boundingBox())!;
    const [x, y] = [h.x + h.width / 2, h.y + h.height / 2];
    await p.mouse.move(x, y);
    await p.mouse.down();
    for (let i = 1; i <= 5; i++) await p.mouse.move(x + (cols * col * i) / 5, y + (rows * 68 * i) / 5);
    await p.mouse.up();
  }

  it('builds a dashboard by dragging, saved; reloaded and seen by another member; its numbers are the analytics API', async () => {
    const projectId = web.creds.project.id;
    await openSignedIn(page, web.baseUrl, web.creds.user, `/p/${projectId}/traces`);
    await (await sections(page)).getByRole('link', { name: 'Dashboards' }).click();
    await page.getByRole('heading', { name: 'Dashboards', exact: true }).waitFor();
    // The default dashboard is there from the start.
    await page.getByRole('link', { name: 'Overview' }).waitFor();
    await page.getByLabel('New dashboard').fill('Team board');
    await page.getByRole('button', { name: 'Create dashboard' }).click();
    await page.getByRole('heading', { name: 'Team board' }).waitFor();
    const dashboardId = new URL(page.url()).pathname.split('/').pop()!;

    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const add = async (title: string, metric: string, display: string, width: string, groupBy = 'none') => {
      await page.getByLabel('Chart title').fill(title);
      await page.getByLabel('Metric').selectOption(metric);
      await page.getByLabel('Shown as').selectOption(display);
      await page.getByLabel('Group by').selectOption(groupBy);
      await page.getByLabel('Width').selectOption(width);
      await page.getByRole('button', { name: 'Add chart' }).click();
      await chartBox(page, title).waitFor();
    };
    await add('All traces', 'traces', 'number', '3');
    await add('Cost per model', 'cost', 'table', '6', 'model');
    await add('Error share', 'error_rate', 'number', '3');
    expect(await layoutOf(page, 'All traces')).toBe('0,0,3,2');
    expect(await layoutOf(page, 'Cost per model')).toBe('0,2,6,4');
    expect(await layoutOf(page, 'Error share')).toBe('0,6,3,2');

    // Dragged up beside the first chart, then the table made wider by its corner while the first
    // save is still on its way (held here, as a slow network or a busy server would): the second
    // waits for it and goes over the version it made, so neither is refused as someone else's.
    const savesBefore = Number(/Saved (\d+) time/.exec((await page.getByTestId('dashboard-saved').textContent()) ?? '')?.[1]);
    expect(savesBefore).toBeGreaterThan(0);
    let releaseFirstSave!: () => void;
    const firstSaveHeld = new Promise<void>((resolve) => (releaseFirstSave = resolve));
    const puts: number[] = [];
    await page.route(`**/api/dashboards/${dashboardId}`, async (route) => {
      if (route.request().method() === 'PUT' && puts.push(Date.now()) === 1) await firstSaveHeld;
      await route.continue();
    });
    await dragBy(page, 'Move Error share (drag, or arrow keys)', 3, -6);
    await expect.poll(() => layoutOf(page, 'Error share')).toBe('3,0,3,2');
    await expect.poll(() => puts.length).toBe(1);
    await dragBy(page, 'Resize Cost per model (drag, or arrow keys)', 3, 1);
    await expect.poll(() => layoutOf(page, 'Cost per model')).toBe('0,2,9,5');
    // Shown as it waits: the move is still drawn where it was dropped.
    expect(await layoutOf(page, 'Error share')).toBe('3,0,3,2');
    await expect.poll(() => page.getByTestId('dashboard-saved').textContent()).toContain('Saving…');
    expect(puts).toHaveLength(1);
    releaseFirstSave();
    await expect.poll(() => page.getByTestId('dashboard-saved').textContent()).toContain(`Saved ${savesBefore + 2} times`);
    expect(puts).toHaveLength(2);
    expect(await page.getByTestId('dashboard-stale').count()).toBe(0);
    await page.unroute(`**/api/dashboards/${dashboardId}`);
    // Saved as it was drawn.
    await expect
      .poll(async () => (await web.request('GET', `/api/dashboards/${dashboardId}`, { token: web.creds.projectApiKey })).body.definition.charts.map((c: { layout: unknown }) => c.layout))
      .toEqual([
        { x: 0, y: 0, w: 3, h: 2 },
        { x: 0, y: 2, w: 9, h: 5 },
        { x: 3, y: 0, w: 3, h: 2 },
      ]);
    await page.getByRole('button', { name: 'Done' }).click();

    // A reload draws it the same, with the numbers the analytics API gives for each chart's query.
    const charts = watchCharts(page);
    await page.reload();
    await chartBox(page, 'Error share').waitFor();
    expect(await layoutOf(page, 'Error share')).toBe('3,0,3,2');
    expect(await layoutOf(page, 'Cost per model')).toBe('0,2,9,5');
    await checkNumbers(page, charts);
    // A number chart's figure (a table has none): the map's order is the order the answers came in.
    const numberChart = [...charts.entries()].find(([, c]) => c.chart.metric === 'traces')![0];
    await checkBothWidths(page, 'dashboard', () => page.getByTestId(`chart-value-${numberChart}`).first().waitFor(), true);

    // Another member of the project sees the same dashboard.
    const other = await memberPage();
    const theirCharts = watchCharts(other);
    await openInApp(other, `${web.baseUrl}/p/${projectId}/dashboards/${dashboardId}`);
    await chartBox(other, 'Error share').waitFor();
    expect(await layoutOf(other, 'Error share')).toBe('3,0,3,2');
    expect(await layoutOf(other, 'Cost per model')).toBe('0,2,9,5');
    await checkNumbers(other, theirCharts);

    // A table cell opens the traces behind it: that model, that interval.
    const cell = chartBox(page, 'Cost per model').locator('td[data-value] a').first();
    await cell.click();
    await page.waitForURL(/\/traces\?/);
    const search = new URL(page.url()).searchParams;
    expect(search.get('range')).toBe('custom');
    expect(['gpt-4o-mini', 'claude-3-5-haiku']).toContain(search.get('model'));
  }, 240_000);

  it('a chart dropped on another pushes it aside; the saved layout, reloaded, never overlaps', async () => {
    const projectId = web.creds.project.id;
    const box = (id: string, title: string, metric: string, [x, y, w, h]: number[]) => ({ id, title, metric, display: 'bar', layout: { x, y, w, h } });
    const made = await web.request('PUT', '/api/dashboards/drag-board', {
      token: web.creds.projectApiKey,
      body: { name: 'Drag board', charts: [box('alpha', 'Alpha', 'traces', [0, 0, 6, 4]), box('beta', 'Beta', 'cost', [6, 0, 6, 4]), box('gamma', 'Gamma', 'spans', [0, 4, 6, 4])] },
    });
    expect(made.status, made.text).toBe(200);
    await openInApp(page, `${web.baseUrl}/p/${projectId}/dashboards/drag-board`);
    await chartBox(page, 'Gamma').waitFor();
    await page.getByRole('button', { name: 'Edit', exact: true }).click();

    // Gamma dragged up onto Alpha: Alpha goes below it, Beta stays.
    await dragBy(page, 'Move Gamma (drag, or arrow keys)', 0, -4);
    await expect.poll(() => layoutOf(page, 'Gamma')).toBe('0,0,6,4');
    expect(await layoutOf(page, 'Alpha')).toBe('0,4,6,4');
    expect(await layoutOf(page, 'Beta')).toBe('6,0,6,4');
    // Beta dragged left onto Gamma: both on its left go down, in order, and nothing is left hanging.
    await dragBy(page, 'Move Beta (drag, or arrow keys)', -6, 0);
    await expect.poll(() => layoutOf(page, 'Beta')).toBe('0,0,6,4');
    expect(await layoutOf(page, 'Gamma')).toBe('0,4,6,4');
    expect(await layoutOf(page, 'Alpha')).toBe('0,8,6,4');
    // Alpha made wider by its corner: nothing beside it to push.
    await dragBy(page, 'Resize Alpha (drag, or arrow keys)', 6, 0);
    await expect.poll(() => layoutOf(page, 'Alpha')).toBe('0,8,12,4');
    const stored = async () => (await web.request('GET', '/api/dashboards/drag-board', { token: web.creds.projectApiKey })).body.definition.charts.map((c: { id: string; layout: { x: number; y: number; w: number; h: number } }) => [c.id, c.layout]);
    await expect.poll(stored).toEqual([
      ['alpha', { x: 0, y: 8, w: 12, h: 4 }],
      ['beta', { x: 0, y: 0, w: 6, h: 4 }],
      ['gamma', { x: 0, y: 4, w: 6, h: 4 }],
    ]);

    await page.reload();
    await chartBox(page, 'Alpha').waitFor();
    const drawn = await grid(page).locator('[data-layout]').evaluateAll((els) => els.map((e) => e.getAttribute('data-layout')!.split(',').map(Number)));
    expect(drawn.sort()).toEqual([[0, 0, 6, 4], [0, 4, 6, 4], [0, 8, 12, 4]]);
    for (const [i, a] of drawn.entries()) for (const b of drawn.slice(i + 1)) expect(a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3], `${a} overlaps ${b}`).toBe(false);
  }, 120_000);

  it('a bar, or a line\'s dot, opens the traces behind it: that group, that hour', async () => {
    const projectId = web.creds.project.id;
    const made = await web.request('PUT', '/api/dashboards/points', {
      token: web.creds.projectApiKey,
      body: {
        name: 'Points',
        timeRange: { last: '24h' },
        charts: [
          { id: 'bars', title: 'Traces per model (bars)', metric: 'traces', display: 'bar', groupBy: 'model', interval: 'hour', layout: { x: 0, y: 0, w: 12, h: 5 } },
          { id: 'lines', title: 'Traces per model (lines)', metric: 'traces', display: 'line', groupBy: 'model', interval: 'hour', layout: { x: 0, y: 5, w: 12, h: 5 } },
        ],
      },
    });
    expect(made.status, made.text).toBe(200);
    const rows = page.locator('[data-testid=traces-grid] [role=row][data-trace-id]');
    // The traces the list should show for a URL's model and hour, from what the test sent.
    const sent = { 'dash-1': ['gpt-4o-mini', 1], 'dash-2': ['gpt-4o-mini', 2], 'dash-3': ['claude-3-5-haiku', 3], 'dash-4': ['claude-3-5-haiku', 5], 'dash-5': ['gpt-4o-mini', 7] } as const;
    const expectedFor = (url: URL) => {
      const [from, to] = [Date.parse(url.searchParams.get('from')!), Date.parse(url.searchParams.get('to')!)];
      return Object.entries(sent)
        .filter(([, [model, ago]]) => (url.searchParams.get('model') ?? model) === model && now - ago * HOUR >= from && now - ago * HOUR <= to)
        .map(([id]) => id)
        .sort();
    };
    /** Opens the dashboard; the chart's data (series in the order they are drawn). */
    const open = async (chartId: string) => {
      const charts = watchCharts(page);
      await openInApp(page, `${web.baseUrl}/p/${projectId}/dashboards/points`);
      await expect.poll(() => charts.has(chartId), { timeout: 20_000 }).toBe(true);
      return charts.get(chartId)!;
    };
    /** The list opened: that hour's traces, of the series (null: of every series). */
    const checkList = async (data: Awaited<ReturnType<typeof open>>, series: number | null, point: number) => {
      await page.waitForURL(/\/traces\?/);
      const url = new URL(page.url());
      const start = data.series[0].points[point].start;
      expect(url.searchParams.get('model')).toBe(series === null ? null : data.series[series].name);
      expect([Date.parse(url.searchParams.get('from')!), Date.parse(url.searchParams.get('to')!)]).toEqual([start, start + HOUR - 1]);
      // The list's range fields show that hour (the browser's zone, to the minute).
      const field = (ms: number) => page.evaluate((t) => new Date(t - new Date(t).getTimezoneOffset() * 60_000).toISOString().slice(0, 16), ms);
      await expect.poll(() => page.getByLabel('From', { exact: true }).inputValue()).toBe(await field(start));
      expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe(await field(start + HOUR - 1));
      const expected = expectedFor(url);
      expect(expected.length).toBe(series === null ? data.series.reduce((n, s) => n + (s.points[point].value ?? 0), 0) : data.series[series].points[point].value);
      await expect.poll(async () => (await rows.evaluateAll((els) => els.map((r) => r.getAttribute('data-trace-id') ?? ''))).sort()).toEqual(expected);
    };
    /** A point of a series that has traces, where another series has none (so its mark is its own). */
    const pick = (data: Awaited<ReturnType<typeof open>>, series: number) => data.series[series].points.findIndex((p, i) => (p.value ?? 0) > 0 && data.series.every((s, k) => k === series || !s.points[i].value));

    // A bar of the second model: that model's traces of that hour.
    const bars = await open('bars');
    expect(bars.series.length).toBe(2);
    const barPoint = pick(bars, 1);
    expect(barPoint).toBeGreaterThanOrEqual(0);
    const chart = chartBox(page, 'Traces per model (bars)');
    const layer = chart.locator('.recharts-bar').nth(1).locator('.recharts-bar-rectangle').nth(barPoint).locator('path');
    await layer.hover();
    await layer.click();
    await checkList(bars, 1, barPoint);

    // A line's dot, of the first model: hovered, the tooltip names that hour; clicked, that model's traces of that hour.
    const lines = await open('lines');
    expect(lines.series.map((s) => s.name)).toEqual(bars.series.map((s) => s.name));
    const linePoint = pick(lines, 0);
    expect(linePoint).toBeGreaterThanOrEqual(0);
    const lineChart = chartBox(page, 'Traces per model (lines)');
    const dot = lineChart.locator('.recharts-line-dots').nth(0).locator('circle').nth(linePoint);
    await dot.hover();
    // The tooltip names the dot's hour and its model's count there.
    const hour = await page.evaluate((ms) => new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' }).format(ms), lines.series[0].points[linePoint].start);
    const tip = lineChart.locator('.recharts-tooltip-wrapper');
    await expect.poll(() => tip.innerText()).toContain(hour);
    expect(await tip.innerText()).toMatch(new RegExp(`${lines.series[0].name}\\s*${lines.series[0].points[linePoint].value}`));
    // Clicked where the dot is, as a person does (the hovered dot is drawn over it, larger).
    const at = (await dot.boundingBox())!;
    await page.mouse.click(at.x + at.width / 2, at.y + at.height / 2);
    await checkList(lines, 0, linePoint);
  }, 120_000);

  it('two members edit one dashboard: the later save shows who saved since and offers a reload, after which it saves (1280 and 390 px)', async () => {
    const projectId = web.creds.project.id;
    const second = await memberPage();
    const open = async (p: Page) => {
      await openInApp(p, `${web.baseUrl}/p/${projectId}/dashboards/drag-board`);
      await chartBox(p, 'Alpha').waitFor();
      await p.getByRole('button', { name: 'Edit', exact: true }).click();
    };
    const rename = async (p: Page, name: string) => {
      await p.getByLabel('Name', { exact: true }).fill(name);
      await p.getByRole('button', { name: 'Save settings' }).click();
    };
    const version = async () => (await web.request('GET', '/api/dashboards/drag-board', { token: web.creds.projectApiKey })).body.version as number;
    await open(page);
    await open(second);
    const stale = second.getByTestId('dashboard-stale');

    for (const width of ['desktop', 'phone'] as const) {
      if (width === 'phone') await second.setViewportSize({ width: 390, height: 844 });
      const before = await version();
      // The first member saves; the second, still on the version read before, saves too.
      await rename(page, `Drag board (${width}, first)`);
      await expect.poll(version).toBe(before + 1);
      if (width === 'desktop') await second.getByRole('button', { name: 'Move Gamma (drag, or arrow keys)' }).press('ArrowRight');
      else await rename(second, `Drag board (${width}, second)`);
      await stale.waitFor();
      await stale.getByText(`saved by ${web.creds.user.email} at`).waitFor();
      expect(await version()).toBe(before + 1);
      if (width === 'desktop') await checkBothWidths(second, 'dashboard-stale', () => stale.getByRole('button', { name: 'Reload the dashboard' }).waitFor(), true);
      else expect(await widerThanScreen(second)).toEqual([]);
      // Reloaded: the first member's change shows, and the second one's, made again, is saved.
      await stale.getByRole('button', { name: 'Reload the dashboard' }).click();
      await second.getByRole('heading', { name: `Drag board (${width}, first)` }).waitFor();
      await stale.waitFor({ state: 'detached' });
      if (width === 'desktop') {
        await second.getByRole('button', { name: 'Move Gamma (drag, or arrow keys)' }).press('ArrowRight');
        await expect.poll(version).toBe(before + 2);
        expect(await layoutOf(second, 'Gamma')).toBe('1,4,6,4');
      } else {
        await rename(second, `Drag board (${width}, second)`);
        await expect.poll(version).toBe(before + 2);
        await second.getByRole('heading', { name: `Drag board (${width}, second)` }).waitFor();
      }
      expect(await stale.count()).toBe(0);
      // The first member's page now holds an old version: theirs would be refused next; a reload brings them up to date.
      await page.reload();
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
    }
  }, 180_000);

  /** Each chart's figures on the page against POST /api/analytics/timeseries for the query the chart read. */
  async function checkNumbers(p: Page, charts: ReturnType<typeof watchCharts>) {
    await expect.poll(() => charts.size, { timeout: 20_000 }).toBe(3);
    for (const [chartId, data] of charts) {
      const q = data.query as { startDate: number; endDate: number; groupBy: string | null };
      // The dashboard's saved range: the last 24 hours.
      expect(q.endDate - q.startDate).toBe(24 * HOUR);
      const analytics = await web.request('POST', '/api/analytics/timeseries', { token: web.creds.projectApiKey, body: data.query });
      expect(analytics.status, analytics.text).toBe(200);
      const a = analytics.body;
      // The answer reached the test; the page may not have drawn it yet (it draws three charts).
      await p.locator(`[data-testid="chart-value-${chartId}"], [data-testid="chart-table-${chartId}"]`).waitFor();
      const value = p.getByTestId(`chart-value-${chartId}`);
      if (await value.count()) {
        const shown = Number(await value.getAttribute('data-value'));
        if (data.chart.metric === 'traces') expect([shown, a.totals.traces]).toEqual([5, 5]);
        else expect([data.chart.metric, shown]).toEqual(['error_rate', a.totals.errors / a.totals.traces]);
        continue;
      }
      // The table: a column per model, a row per interval, each cell the bucket's cost.
      expect(q.groupBy).toBe('model');
      const table = p.getByTestId(`chart-table-${chartId}`);
      const heads = (await table.locator('thead th').allTextContents()).slice(1);
      expect([...heads].sort()).toEqual(a.series.map((s: { group: string }) => s.group).sort());
      const cells = await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td[data-value]')].map((td) => td.getAttribute('data-value'))));
      for (const [col, name] of heads.entries()) {
        const s = a.series.find((x: { group: string }) => x.group === name);
        const expected = s.buckets.map((b: { cost: number; traces: number }) => String(b.cost));
        expect(cells.map((row) => row[col])).toEqual(expected);
      }
      const sum = a.series.reduce((n: number, s: { buckets: { cost: number }[] }) => n + s.buckets.reduce((m, b) => m + b.cost, 0), 0);
      expect(sum).toBeCloseTo(0.31, 10);
    }
  }
});
