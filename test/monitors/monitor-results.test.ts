import { beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, useProjectApp, type TestApp, type Tenant } from '../support/harness.ts';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const HOUR = 3_600_000;

describe.each(databaseKinds)('monitor results and pass rate over time (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let other: Tenant;
  let monitorId: string;
  const clock = useProjectApp(kind, (app) => ({ t, key, other } = app));

  const trace = (id: string, text: string) =>
    t.request('POST', '/api/collector', {
      authToken: key,
      body: {
        trace_id: id,
        spans: [{ span_id: `${id}-1`, type: 'llm', model: 'gpt-4o-mini', input: { type: 'text', value: 'Which vendor?' }, output: { type: 'text', value: text }, timestamps: { started_at: clock.now().getTime() - 1000, finished_at: clock.now().getTime() - 900 } }],
      },
    });
  const runMonitors = async () => {
    clock.advance(31_000);
    return t.app.services.jobs.runDue();
  };

  beforeAll(async () => {
    const created = await t.request('POST', '/api/monitors', {
      authToken: key,
      body: { name: 'Competitor watch', evaluator: 'llm/competitor_blocklist', settings: { competitors: ['Acme'] } },
    });
    expect(created.status).toBe(200);
    monitorId = created.body.id;
    // The same evaluator through the API: not this monitor's result.
    await t.request('POST', '/api/evaluations/llm/competitor_blocklist/evaluate', {
      authToken: key,
      body: { data: { output: 'Acme' }, settings: { competitors: ['Acme'] }, trace_id: 'mr-api', name: 'Competitor watch' },
    });
    // First hour: two failing, one passing; two hours later: one failing, two passing.
    for (const [id, text] of [['mr-1', 'Try Acme.'], ['mr-2', 'We are best.'], ['mr-3', 'Acme is cheaper.']]) expect((await trace(id, text)).status).toBe(200);
    expect(await runMonitors()).toBe(3);
    clock.advance(2 * HOUR);
    for (const [id, text] of [['mr-4', 'Fine.'], ['mr-5', 'Acme!'], ['mr-6', 'All good.']]) expect((await trace(id, text)).status).toBe(200);
    expect(await runMonitors()).toBe(3);
  });

  it('lists the results newest first, page by page, each naming its trace', async () => {
    const all = await t.request('GET', `/api/monitors/${monitorId}/results`, { authToken: key });
    expect(all.status).toBe(200);
    expect(all.body.data.map((r: { trace_id: string }) => r.trace_id).sort()).toEqual(['mr-1', 'mr-2', 'mr-3', 'mr-4', 'mr-5', 'mr-6']);
    expect(all.body.next_cursor).toBeNull();
    const times = all.body.data.map((r: { inserted_at: number }) => r.inserted_at);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(all.body.data[0]).toMatchObject({ evaluation_id: expect.stringMatching(/^eval_/), status: 'processed', passed: expect.any(Boolean) });

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { data: { evaluation_id: string }[]; next_cursor: string | null } } = await t.request(
        'GET',
        `/api/monitors/${monitorId}/results?pageSize=4${cursor ? `&cursor=${cursor}` : ''}`,
        { authToken: key },
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((r) => r.evaluation_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.body.data.map((r: { evaluation_id: string }) => r.evaluation_id));

    const failed = await t.request('GET', `/api/monitors/${monitorId}/results?outcome=failed`, { authToken: key });
    expect(failed.body.data.map((r: { trace_id: string }) => r.trace_id).sort()).toEqual(['mr-1', 'mr-3', 'mr-5']);
    expect(failed.body.data.every((r: { passed: boolean }) => r.passed === false)).toBe(true);
  });

  it('counts passed and failed per interval: the pass rate over time', async () => {
    const res = await t.request('GET', `/api/monitors/${monitorId}/stats?startDate=${T0}&endDate=${new Date(T0 + 3 * HOUR - 1).toISOString()}&interval=hour`, { authToken: key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ interval: 'hour', intervalMs: HOUR, startDate: T0, endDate: T0 + 3 * HOUR - 1 });
    expect(res.body.buckets).toEqual([
      { start: T0, passed: 1, failed: 2, errors: 0, skipped: 0, pass_rate: 1 / 3, score: expect.anything(), labels: expect.any(Array) },
      { start: T0 + HOUR, passed: 0, failed: 0, errors: 0, skipped: 0, pass_rate: null, score: null, labels: [] },
      { start: T0 + 2 * HOUR, passed: 2, failed: 1, errors: 0, skipped: 0, pass_rate: 2 / 3, score: expect.anything(), labels: expect.any(Array) },
    ]);
    // Defaults: the 7 days up to now, auto interval (hours).
    const recent = await t.request('GET', `/api/monitors/${monitorId}/stats`, { authToken: key });
    expect(recent.body.interval).toBe('hour');
    expect(recent.body.buckets.reduce((n: number, b: { passed: number; failed: number }) => n + b.passed + b.failed, 0)).toBe(6);
  });

  it('refuses bad queries naming the field, and other projects get 404', async () => {
    const bad = async (query: string, field: string) => {
      const res = await t.request('GET', `/api/monitors/${monitorId}/${query}`, { authToken: key });
      expect(res.status, query).toBe(400);
      expect(res.body.error.meta.field, query).toBe(field);
    };
    await bad('results?pageSize=0', 'querystring.pageSize');
    await bad('results?pageSize=201', 'querystring.pageSize');
    await bad('results?cursor=nonsense', 'cursor');
    await bad('results?outcome=maybe', 'querystring.outcome');
    await bad(`stats?startDate=${T0}&endDate=${T0 - 1}`, 'endDate');
    await bad('stats?startDate=yesterday', 'querystring.startDate');
    await bad(`stats?startDate=${T0 - 30 * 86_400_000}&endDate=${T0}&interval=minute`, 'interval');
    expect((await t.request('GET', '/api/monitors/mon_nope/results', { authToken: key })).status).toBe(404);
    expect((await t.request('GET', `/api/monitors/${monitorId}/results`, { authToken: other.projectToken })).status).toBe(404);
    expect((await t.request('GET', `/api/monitors/${monitorId}/stats`, { authToken: other.projectToken })).status).toBe(404);
  });
});
