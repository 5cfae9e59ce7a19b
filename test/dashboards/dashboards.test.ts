import { beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, useProjectApp, type TestApp, type Tenant } from '../support/harness.ts';
import { asBrowser, signIn } from '../support/sessions.ts';

const DAY1 = Date.parse('2026-11-20T00:00:00Z');
const DAY2 = Date.parse('2026-11-21T00:00:00Z');
const RANGE = { from: '2026-11-20T00:00:00Z', to: DAY2 + 86_400_000 - 1 };

interface TraceSpec {
  id: string;
  at: number;
  ms: number;
  model: string;
  user: string;
  labels: string[];
  error?: boolean;
  cost: number;
  tokens: [number, number];
}

const TRACES: TraceSpec[] = [
  { id: 'db-a1', at: DAY1 + 3_600_000, ms: 100, model: 'gpt-4o-mini', user: 'alice', labels: ['prod'], cost: 0.01, tokens: [100, 20] },
  { id: 'db-a2', at: DAY1 + 7_200_000, ms: 300, model: 'gpt-4o-mini', user: 'bob', labels: ['prod', 'beta'], error: true, cost: 0.02, tokens: [200, 40] },
  { id: 'db-a3', at: DAY1 + 10_800_000, ms: 500, model: 'claude-3-5-haiku', user: 'alice', labels: ['prod'], cost: 0.03, tokens: [300, 60] },
  { id: 'db-b1', at: DAY2 + 3_600_000, ms: 1000, model: 'gpt-4o-mini', user: 'carol', labels: ['beta'], cost: 0.04, tokens: [400, 80] },
  { id: 'db-b2', at: DAY2 + 7_200_000, ms: 700, model: 'claude-3-5-haiku', user: 'alice', labels: ['prod'], error: true, cost: 0.05, tokens: [500, 100] },
];

/** A chart at a place in the grid. */
const chart = (id: string, metric: string, display: string, layout: [number, number, number, number], extra: Record<string, unknown> = {}) => ({
  id,
  title: `Chart ${id}`,
  metric,
  display,
  layout: { x: layout[0], y: layout[1], w: layout[2], h: layout[3] },
  ...extra,
});

describe.each(databaseKinds)('dashboards API (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let other: Tenant;
  useProjectApp(kind, (app) => ({ t, key, other } = app));

  const api = (method: string, url: string, body?: unknown, authToken = key) => t.request(method, url, { authToken, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    for (const s of TRACES) {
      const res = await api('POST', '/api/collector', {
        trace_id: s.id,
        metadata: { user_id: s.user, labels: s.labels },
        spans: [
          {
            span_id: `${s.id}-llm`,
            type: 'llm',
            model: s.model,
            input: { type: 'text', value: 'question' },
            output: { type: 'text', value: 'answer' },
            metrics: { prompt_tokens: s.tokens[0], completion_tokens: s.tokens[1], cost: s.cost },
            ...(s.error ? { error: { message: 'boom' } } : {}),
            timestamps: { started_at: s.at, finished_at: s.at + s.ms },
          },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });

  it('starts with the default dashboard: the analytics charts as a definition, built in until saved', async () => {
    const list = await api('GET', '/api/dashboards');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([expect.objectContaining({ id: 'default', builtIn: true, name: 'Overview' })]);
    const def = await api('GET', '/api/dashboards/default');
    expect(def.status).toBe(200);
    expect(def.body.builtIn).toBe(true);
    expect(def.body.definition.charts.map((c: { metric: string }) => c.metric)).toEqual(
      expect.arrayContaining(['traces', 'spans', 'cost', 'tokens', 'latency_p95', 'error_rate', 'evaluation_pass_rate', 'thumbs_up']),
    );
    // The built-in definition is itself valid: put back as is, it is saved.
    const saved = await api('PUT', '/api/dashboards/default', def.body.definition);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toMatchObject({ id: 'default', builtIn: false, version: 1 });
    expect((await api('DELETE', '/api/dashboards/default')).status).toBe(200);
    expect((await api('GET', '/api/dashboards/default')).body.builtIn).toBe(true);
  });

  it('refuses a save over a version someone else saved meanwhile (If-Match -> 412), naming the version', async () => {
    const put = (body: unknown, ifMatch?: string) =>
      t.request('PUT', '/api/dashboards/shared-edit', { authToken: key, body, ...(ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } }) });
    const first = await put({ name: 'Shared', charts: [chart('a', 'traces', 'line', [0, 0, 6, 4])] });
    expect(first.status, first.text).toBe(200);
    const read = await api('GET', '/api/dashboards/shared-edit');
    expect(read.headers.get('etag')).toBe('"1"');

    // Two editors read version 1; the first saves, the second's save is refused with what happened.
    const mine = await put({ name: 'Shared', charts: [chart('a', 'traces', 'line', [0, 0, 12, 4])] }, read.headers.get('etag')!);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.headers.get('etag')).toBe('"2"');
    const theirs = await put({ name: 'Shared, theirs', charts: [] }, '"1"');
    expect(theirs.status, theirs.text).toBe(412);
    expect(theirs.body.error).toMatchObject({ type: 'precondition_failed', code: 'dashboard_changed', meta: { field: 'If-Match', version: 2 } });
    expect(theirs.body.error.message).toMatch(/saved by someone else .*version 2.*reload/);
    const kept = await api('GET', '/api/dashboards/shared-edit');
    expect(kept.body).toMatchObject({ version: 2, definition: { name: 'Shared', charts: [{ layout: { w: 12 } }] } });
    // Saved by a member (signed in): the refusal names them.
    const session = await signIn(t, t.creds.user.email, t.creds.user.password);
    const byMember = await t.request('PUT', '/api/dashboards/shared-edit', asBrowser(session, { projectId: t.creds.project.id, body: { name: 'Shared', charts: [] }, headers: { 'if-match': '"2"' } }));
    expect(byMember.status, byMember.text).toBe(200);
    const late = await put({ name: 'Shared, late', charts: [] }, '"2"');
    expect(late.status).toBe(412);
    expect(late.body.error.message).toContain(`saved by ${t.creds.user.email} at `);
    expect(late.body.error.message).toMatch(/ at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC \(version \d+/);
    expect(late.body.error.meta).toMatchObject({ version: 3, updatedBy: t.creds.user.id, updatedByEmail: t.creds.user.email });

    // Weak and bare forms name the same version; * and no header write over any version.
    expect((await put({ name: 'Shared', charts: [] }, 'W/"3"')).status).toBe(200);
    expect((await put({ name: 'Shared', charts: [] }, '4')).status).toBe(200);
    expect((await put({ name: 'Shared', charts: [] }, '*')).status).toBe(200);
    const bad = await put({ name: 'Shared', charts: [] }, 'yesterday');
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.error.meta.field).toBe('If-Match');

    // The built-in default is version 0: the first save over it needs "0"; a second one over "0" is late.
    const def = await api('GET', '/api/dashboards/default');
    const defaultPut = (ifMatch: string) => t.request('PUT', '/api/dashboards/default', { authToken: other.projectToken, body: def.body.definition, headers: { 'if-match': ifMatch } });
    const otherDefault = await api('GET', '/api/dashboards/default', undefined, other.projectToken);
    expect(otherDefault.headers.get('etag')).toBe('"0"');
    expect((await defaultPut('"0"')).status).toBe(200);
    expect((await defaultPut('"0"')).status).toBe(412);
    // A dashboard deleted meanwhile: 412 too.
    expect((await api('DELETE', '/api/dashboards/shared-edit')).status).toBe(200);
    expect((await put({ name: 'Shared', charts: [] }, '"5"')).status).toBe(412);
  });

  it('reads back a whole definition as it was put, versioned, in the project only', async () => {
    const definition = {
      name: 'Support quality',
      description: 'Kept in git',
      timeRange: { last: '7d' },
      filters: { labels: ['prod'] },
      charts: [chart('traces', 'traces', 'bar', [0, 0, 6, 4], { groupBy: 'model' }), chart('errors', 'error_rate', 'number', [6, 0, 3, 2])],
    };
    const put = await api('PUT', '/api/dashboards/support-quality', definition);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ id: 'support-quality', version: 1, builtIn: false });
    const got = await api('GET', '/api/dashboards/support-quality');
    // The defaults filled in (interval, groupBy) are part of what is read back, nothing else changes.
    expect(got.body.definition).toEqual({
      ...definition,
      charts: [
        { ...definition.charts[0], interval: 'auto' },
        { ...definition.charts[1], interval: 'auto', groupBy: null },
      ],
    });
    // Put again as read: the next version, the same definition.
    const again = await api('PUT', '/api/dashboards/support-quality', got.body.definition);
    expect(again.body.version).toBe(2);
    expect(again.body.definition).toEqual(got.body.definition);
    expect((await api('GET', '/api/dashboards')).body.data.map((d: { id: string }) => d.id)).toEqual(['default', 'support-quality']);

    // Another organization sees none of it, and cannot write over it.
    expect((await api('GET', '/api/dashboards/support-quality', undefined, other.projectToken)).status).toBe(404);
    expect((await api('GET', '/api/dashboards', undefined, other.projectToken)).body.data.map((d: { id: string }) => d.id)).toEqual(['default']);
    expect((await api('POST', '/api/dashboards/support-quality/charts/traces/data', {}, other.projectToken)).status).toBe(404);
    const theirs = await api('PUT', '/api/dashboards/support-quality', { ...definition, name: 'Theirs' }, other.projectToken);
    expect(theirs.status).toBe(200);
    expect((await api('GET', '/api/dashboards/support-quality')).body.definition.name).toBe('Support quality');

    const created = await api('POST', '/api/dashboards', { name: 'Scratch', charts: [] });
    expect(created.status).toBe(200);
    expect(created.body.id).toMatch(/^dash_/);
    expect((await api('DELETE', `/api/dashboards/${created.body.id}`)).status).toBe(200);
    expect((await api('GET', `/api/dashboards/${created.body.id}`)).status).toBe(404);
  });

  it('refuses what cannot be drawn: 400 naming the field', async () => {
    const refused = async (definition: unknown, field: string, words: RegExp) => {
      const res = await api('PUT', '/api/dashboards/bad', definition);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.message).toContain(field);
      expect(res.body.error.message).toMatch(words);
    };
    const ok = (i: number) => chart(`c${i}`, 'traces', 'line', [(i % 4) * 3, Math.floor(i / 4) * 2, 3, 2]);
    await refused({ name: 'Too many', charts: Array.from({ length: 200 }, (_, i) => ok(i)) }, 'body.charts', /50/);
    await refused({ name: 'One too many', charts: Array.from({ length: 51 }, (_, i) => ok(i)) }, 'body.charts', /50/);
    await refused({ name: 'No such metric', charts: [chart('a', 'happiness', 'line', [0, 0, 6, 4])] }, 'body.charts.0.metric', /traces/);
    await refused({ name: 'Overlap', charts: [chart('a', 'traces', 'line', [0, 0, 6, 4]), chart('b', 'cost', 'line', [4, 2, 6, 4])] }, 'body.charts.1.layout', /overlaps chart a/);
    await refused({ name: 'Off the grid', charts: [chart('a', 'traces', 'line', [8, 0, 6, 4])] }, 'body.charts.0.layout.w', /12 columns/);
    await refused({ name: 'Same id', charts: [chart('a', 'traces', 'line', [0, 0, 6, 4]), chart('a', 'cost', 'line', [6, 0, 6, 4])] }, 'body.charts.1.id', /same id/);
    await refused({ name: 'Backwards', timeRange: { from: '2026-11-21T00:00:00Z', to: '2026-11-20T00:00:00Z' }, charts: [] }, 'body.timeRange.to', /before from/);
    await refused({ name: 'Too long', timeRange: { from: 0, to: 500 * 86_400_000 }, charts: [] }, 'body.timeRange.to', /400 days/);
    await refused({ name: 'Both', timeRange: { last: '7d', from: 0, to: 1 }, charts: [] }, 'body.timeRange.last', /not both/);
    await refused({ name: 'Unknown range', timeRange: { last: '3w' }, charts: [] }, 'body.timeRange.last', /24h/);
    await refused({ name: 'Chart range', charts: [chart('a', 'traces', 'line', [0, 0, 6, 4], { timeRange: { from: 10, to: 5 } })] }, 'body.charts.0.timeRange.to', /before from/);
    await refused({ name: 'Percentile number', charts: [chart('a', 'latency_p95', 'number', [0, 0, 6, 4])] }, 'body.charts.0.display', /percentile/);
    await refused({ name: 'Score', charts: [chart('a', 'traces', 'line', [0, 0, 6, 4], { scoreConfigId: 'quality' })] }, 'body.charts.0.scoreConfigId', /only for score_mean/);
    await refused({ name: 'Score groups', charts: [chart('a', 'score_count', 'line', [0, 0, 6, 4], { groupBy: 'model' })] }, 'body.charts.0.groupBy', /score config/);
    await refused({ name: 'Bad filter', charts: [chart('a', 'traces', 'line', [0, 0, 6, 4], { filters: { colour: 'red' } })] }, 'body.charts.0.filters', /colour/);
    // Nothing refused was stored.
    expect((await api('GET', '/api/dashboards/bad')).status).toBe(404);
  });

  it("each chart's numbers are the analytics API's for the chart's query: inherited range and filter, a chart's own", async () => {
    const definition = {
      name: 'Checks',
      timeRange: RANGE,
      filters: { labels: ['prod'] },
      charts: [
        chart('by-model', 'traces', 'bar', [0, 0, 6, 4], { groupBy: 'model', interval: 'day' }),
        chart('errors', 'error_rate', 'number', [6, 0, 3, 2], { interval: 'day' }),
        chart('cost', 'cost', 'number', [9, 0, 3, 2], { interval: 'day' }),
        // Its own filter on top of the dashboard's, and its own range (the first day only).
        chart('alice', 'tokens', 'table', [6, 2, 6, 4], { interval: 'hour', filters: { user_id: 'alice' }, timeRange: { from: DAY1, to: DAY2 - 1 } }),
        chart('latency', 'latency_p95', 'line', [0, 4, 6, 4], { interval: 'day' }),
      ],
    };
    expect((await api('PUT', '/api/dashboards/checks', definition)).status).toBe(200);
    const data = async (chartId: string, body: unknown = {}) => {
      const res = await api('POST', `/api/dashboards/checks/charts/${chartId}/data`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    const analytics = async (body: Record<string, unknown>) => {
      const res = await api('POST', '/api/analytics/timeseries', body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    const range = { startDate: DAY1, endDate: DAY2 + 86_400_000 - 1 };

    // Grouped by model: one series per model, a point per day, as the analytics API counts them.
    const byModel = await data('by-model');
    expect(byModel.query).toEqual({ ...range, interval: 'day', utcOffsetMinutes: 0, filters: { labels: ['prod'] }, groupBy: 'model' });
    const a1 = await analytics({ ...range, interval: 'day', filters: { labels: ['prod'] }, groupBy: 'model' });
    expect(byModel.series.map((s: { name: string }) => s.name)).toEqual(a1.series.map((s: { group: string }) => s.group));
    for (const [i, s] of byModel.series.entries()) {
      expect(s.points).toEqual(a1.series[i].buckets.map((b: { start: number; traces: number }) => ({ start: b.start, value: b.traces })));
      // The traces behind a point: the dashboard's filter and the group.
      expect(s.filters).toEqual({ labels: ['prod'], model: [s.group] });
    }
    // 4 prod traces: 2 per model over the two days.
    expect(byModel.series.map((s: { total: number }) => s.total)).toEqual([2, 2]);

    const errors = await data('errors');
    const a2 = await analytics({ ...range, interval: 'day', filters: { labels: ['prod'] } });
    expect(errors.value).toBe(a2.totals.errors / a2.totals.traces);
    expect(errors.value).toBe(0.5);
    const cost = await data('cost');
    expect(cost.value).toBe(a2.totals.cost);
    expect(cost.value).toBeCloseTo(0.11, 10);

    // The chart's own range and filter (merged on the dashboard's).
    const alice = await data('alice');
    expect(alice.query).toEqual({ startDate: DAY1, endDate: DAY2 - 1, interval: 'hour', utcOffsetMinutes: 0, filters: { labels: ['prod'], user_id: 'alice' }, groupBy: null });
    const a3 = await analytics({ startDate: DAY1, endDate: DAY2 - 1, interval: 'hour', filters: { labels: ['prod'], user_id: 'alice' } });
    expect(alice.series[0].points).toEqual(a3.series[0].buckets.map((b: { start: number; tokens: { prompt: number; completion: number } }) => ({ start: b.start, value: b.tokens.prompt + b.tokens.completion })));
    expect(alice.value).toBe(120 + 360);

    const latency = await data('latency');
    const a4 = await analytics({ ...range, interval: 'day', filters: { labels: ['prod'] } });
    expect(latency.series[0].points.map((p: { value: number | null }) => p.value)).toEqual(a4.series[0].buckets.map((b: { latency_ms: { p95: number | null } }) => b.latency_ms.p95));
    expect(latency.value).toBeNull();

    // The viewer's range replaces the dashboard's, not a chart's own.
    const lastHour = await data('errors', { timeRange: { last: '1h' }, now: DAY2 + 7_200_000 + 1 });
    expect(lastHour.query).toMatchObject({ startDate: DAY2 + 3_600_000 + 1, endDate: DAY2 + 7_200_000 + 1 });
    expect(lastHour.value).toBe(1);
    expect((await data('alice', { timeRange: { last: '1h' } })).query).toMatchObject({ startDate: DAY1, endDate: DAY2 - 1 });

    // The viewer's filter and query on top of the dashboard's (a chart's own key still wins), and the viewer's grouping.
    const gpt = await data('errors', { filters: { model: ['gpt-4o-mini'] }, query: 'answer' });
    expect(gpt.query).toEqual({ ...range, interval: 'day', utcOffsetMinutes: 0, query: 'answer', filters: { labels: ['prod'], model: ['gpt-4o-mini'] }, groupBy: null });
    const a5 = await analytics(gpt.query);
    expect(gpt.value).toBe(a5.totals.errors / a5.totals.traces);
    expect(gpt.value).toBe(0.5);
    expect((await data('alice', { filters: { user_id: ['bob'] } })).query.filters).toEqual({ labels: ['prod'], user_id: 'alice' });
    const byUser = await data('by-model', { groupBy: 'user' });
    expect(byUser.chart.groupBy).toBe('user');
    expect(byUser.series.map((s: { name: string; total: number }) => [s.name, s.total])).toEqual([['alice', 3], ['bob', 1]]);
    expect(byUser.series[0].filters).toEqual({ labels: ['prod'], user_id: ['alice'] });
    const ungrouped = await data('by-model', { groupBy: null });
    expect(ungrouped.query.groupBy).toBeNull();
    expect(ungrouped.value).toBe(4);
    const bad = await api('POST', '/api/dashboards/checks/charts/errors/data', { groupBy: 'colour' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('groupBy');

    expect((await api('POST', '/api/dashboards/checks/charts/nope/data', {})).status).toBe(404);
    expect((await api('POST', '/api/dashboards/nope/charts/errors/data', {})).status).toBe(404);
  });

  it('review scores: the mean and the count per config, per category of one, as the analytics API counts them', async () => {
    const config = async (body: unknown) => {
      const res = await api('POST', '/api/score-configs', body);
      expect(res.status, res.text).toBeLessThan(300);
      return res.body.data.id as string;
    };
    const quality = await config({ name: 'Quality', kind: 'numeric', min: 1, max: 5 });
    const tone = await config({ name: 'Tone', kind: 'categorical', categories: ['friendly', 'rude'] });
    const annotate = async (traceId: string, q: number, t: string) => {
      const res = await api('POST', `/api/annotations/trace/${traceId}`, { comment: 'seen', isThumbsUp: true, scores: [{ configId: quality, value: q }, { configId: tone, value: t }] });
      expect(res.status, res.text).toBeLessThan(300);
    };
    await annotate('db-a1', 2, 'rude');
    await annotate('db-a3', 4, 'friendly');
    await annotate('db-b1', 5, 'friendly');
    const definition = {
      name: 'Scores',
      timeRange: RANGE,
      charts: [
        chart('means', 'score_mean', 'line', [0, 0, 6, 4], { interval: 'day' }),
        chart('given', 'score_count', 'bar', [6, 0, 6, 4], { interval: 'day' }),
        chart('tone', 'score_count', 'table', [0, 4, 6, 4], { interval: 'day', scoreConfigId: tone }),
        chart('quality', 'score_mean', 'number', [6, 4, 3, 2], { interval: 'day', scoreConfigId: quality }),
      ],
    };
    expect((await api('PUT', '/api/dashboards/scores', definition)).status).toBe(200);
    const data = async (chartId: string) => (await api('POST', `/api/dashboards/scores/charts/${chartId}/data`, {})).body;
    const a = (await api('POST', '/api/analytics/timeseries', { startDate: DAY1, endDate: DAY2 + 86_400_000 - 1, interval: 'day' })).body;
    const scoresOf = (id: string) => a.scores.find((s: { configId: string }) => s.configId === id);

    // Every numeric (or boolean) config a series of its mean; no one figure across configs.
    const means = await data('means');
    expect(means.series.map((s: { name: string; group: string }) => [s.name, s.group])).toEqual([['Quality', quality]]);
    expect(means.series[0].points.map((p: { value: number | null }) => p.value)).toEqual(scoresOf(quality).buckets.map((b: { mean: number | null }) => b.mean));
    expect(means.series[0].points.map((p: { value: number | null }) => p.value)).toEqual([3, 5]);
    expect(means.value).toBeNull();
    expect(means.series[0].filters).toEqual({ score: { configId: quality } });
    // One config: its mean over the range.
    expect((await data('quality')).value).toBeCloseTo(11 / 3, 10);

    // Scores given per config; of one categorical config, per category, each with the traces behind it.
    const given = await data('given');
    expect(given.series.map((s: { name: string; total: number }) => [s.name, s.total]).sort()).toEqual([['Quality', 3], ['Tone', 3]]);
    expect(given.value).toBe(6);
    const toneData = await data('tone');
    expect(toneData.series.map((s: { name: string; points: { value: number }[] }) => [s.name, s.points.map((p) => p.value)])).toEqual([
      ['friendly', scoresOf(tone).buckets.map((b: { counts: Record<string, number> }) => b.counts.friendly ?? 0)],
      ['rude', scoresOf(tone).buckets.map((b: { counts: Record<string, number> }) => b.counts.rude ?? 0)],
    ]);
    expect(toneData.series.map((s: { total: number }) => s.total)).toEqual([2, 1]);
    expect(toneData.series[1].filters).toEqual({ score: { configId: tone, value: 'rude' } });
  });
});
