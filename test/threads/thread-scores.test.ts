/**
 * Thread scores as numbers people can chart and sort by: thread monitors' results and people's
 * thread reviews as series of POST /api/analytics/timeseries (so dashboards chart them), and
 * the threads list sorted and filtered by a review score. Thread monitors' verdicts come from
 * the loopback judge fake (support/thread-judge.ts); reviews are completed through the queue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, databaseKinds, ManualClock, startApp, type Tenant, type TestApp } from '../support/harness.ts';
import { MINUTE, threadJudge, type ThreadJudge } from '../support/thread-judge.ts';

const HOUR = 3_600_000;

describe.each(databaseKinds)('thread scores in analytics, dashboards and the threads list (%s)', (kind) => {
  let t: TestApp;
  let judge: ThreadJudge;
  let key: string;
  let other: Tenant;
  const configs: Record<string, string> = {};
  const clock = new ManualClock(new Date('2026-11-24T10:00:00Z'));
  const ten = new Date('2026-11-24T10:00:00Z').getTime();
  const req = (method: string, url: string, body?: unknown) => t.request(method, url, { authToken: key, body });
  const ids = (res: { body: { threads: { thread_id: string }[] } }) => res.body.threads.map((x) => x.thread_id);
  const field = async (body: unknown, url = '/api/threads') => {
    const r = await req('POST', url, body);
    expect(r.status, `${JSON.stringify(body)}: ${r.text}`).toBe(400);
    return r.body.error.meta?.field as string;
  };

  beforeAll(async () => {
    t = await startApp(kind, { clock });
    key = t.creds.projectApiKey;
    other = await createTenant(t);
    judge = await threadJudge(t, clock, key);
    configs.consistent = (await req('POST', '/api/score-configs', { name: 'Consistent', kind: 'boolean' })).body.data.id;
    configs.helpful = (await req('POST', '/api/score-configs', { name: 'Helpful', kind: 'numeric', min: 1, max: 5 })).body.data.id;
    configs.tone = (await req('POST', '/api/score-configs', { name: 'Tone', kind: 'categorical', categories: ['calm', 'rude'] })).body.data.id;
    // 10:00..10:08: three threads the monitor judges at 10:18 (one contradicts itself), and one nobody reviews.
    await judge.thread('trip-a', ['09:15', '09:15', '14:40']);
    await judge.thread('trip-b', ['07:05', '07:05']);
    await judge.thread('trip-c', ['18:30', '18:30']);
    await judge.thread('trip-d', ['06:00']);
    clock.advance(11 * MINUTE);
    await judge.runJobs();

    // 11:30: people review three of them.
    clock.set(new Date('2026-11-24T11:30:00Z'));
    const queue = await req('POST', '/api/queues', { name: 'Conversations', scoreConfigIds: [configs.consistent, configs.helpful, configs.tone] });
    expect(queue.status, queue.text).toBe(201);
    const queueId = queue.body.data.id as string;
    expect((await req('POST', `/api/queues/${queueId}/items`, { threads: ['trip-a', 'trip-b', 'trip-c'] })).body).toEqual({ added: 3, alreadyQueued: 0 });
    const given: Record<string, [boolean, number, string]> = { 'trip-a': [false, 2, 'rude'], 'trip-b': [true, 5, 'calm'], 'trip-c': [true, 4, 'calm'] };
    for (let i = 0; i < 3; i++) {
      const next = await req('POST', `/api/queues/${queueId}/next`);
      expect(next.status, next.text).toBe(200);
      const [consistent, helpful, tone] = given[next.body.data.threadId as string];
      const done = await req('POST', `/api/queues/${queueId}/items/${next.body.data.id}/complete`, {
        scores: [
          { configId: configs.consistent, value: consistent },
          { configId: configs.helpful, value: helpful },
          { configId: configs.tone, value: tone },
        ],
      });
      expect(done.status, done.text).toBe(200);
    }
  });
  afterAll(async () => {
    await t?.close();
    await judge?.fake.close();
  });

  const series = (body: unknown) => req('POST', '/api/analytics/timeseries', body);

  it('gives thread monitors’ results and people’s thread scores as analytics series, by when they were given', async () => {
    const res = await series({ startDate: ten, endDate: ten + 2 * HOUR, interval: 'hour' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.threadEvaluations).toEqual([
      {
        name: 'Consistency',
        buckets: [
          { start: ten, evaluated: 4, passed: 3, failed: 1, errors: 0, pass_rate: 0.75, scored: 4, mean_score: 0.75 },
          { start: ten + HOUR, evaluated: 0, passed: 0, failed: 0, errors: 0, pass_rate: null, scored: 0, mean_score: null },
          { start: ten + 2 * HOUR, evaluated: 0, passed: 0, failed: 0, errors: 0, pass_rate: null, scored: 0, mean_score: null },
        ],
      },
    ]);
    const scores = res.body.threadScores as { configId: string; name: string; kind: string; buckets: { start: number; count: number; mean: number | null; counts: Record<string, number> }[] }[];
    expect(scores.map((s) => [s.name, s.kind, s.configId])).toEqual([
      ['Consistent', 'boolean', configs.consistent],
      ['Helpful', 'numeric', configs.helpful],
      ['Tone', 'categorical', configs.tone],
    ]);
    // Reviewed at 11:30: the 11:00 bucket; none at 10:00.
    expect(scores.map((s) => s.buckets[0].count)).toEqual([0, 0, 0]);
    expect(scores[0].buckets[1]).toMatchObject({ start: ten + HOUR, count: 3, counts: {} });
    expect(scores[0].buckets[1].mean).toBeCloseTo(2 / 3, 10);
    expect(scores[1].buckets[1].mean).toBeCloseTo(11 / 3, 10);
    expect(scores[2].buckets[1]).toEqual({ start: ten + HOUR, count: 3, mean: null, counts: { calm: 2, rude: 1 } });
    // Trace scores stay apart: nobody scored a trace.
    expect(res.body.scores).toEqual([]);

    // A trace filter keeps the threads with a trace it picks.
    const one = await series({ startDate: ten, endDate: ten + 2 * HOUR, interval: 'hour', filters: { user_id: 'user-trip-a' } });
    expect(one.body.threadEvaluations[0].buckets[0]).toMatchObject({ evaluated: 1, passed: 0, failed: 1, pass_rate: 0 });
    expect(one.body.threadScores.find((s: { name: string }) => s.name === 'Helpful').buckets[1]).toMatchObject({ count: 1, mean: 2 });
    const none = await series({ startDate: ten, endDate: ten + 2 * HOUR, query: 'no such words anywhere' });
    expect([none.body.threadEvaluations, none.body.threadScores]).toEqual([[], []]);
    // A range before they ran, and another project, see none.
    const before = await series({ startDate: ten - 2 * HOUR, endDate: ten - 1 });
    expect([before.body.threadEvaluations, before.body.threadScores]).toEqual([[], []]);
    const theirs = await t.request('POST', '/api/analytics/timeseries', { token: other.adminToken, projectId: other.projectId, body: { startDate: ten, endDate: ten + 2 * HOUR } });
    expect(theirs.status, theirs.text).toBe(200);
    expect([theirs.body.threadEvaluations, theirs.body.threadScores]).toEqual([[], []]);
  });

  it('charts them on a dashboard, agreeing with the analytics API; bad thread charts are refused naming the field', async () => {
    const layout = (x: number) => ({ x, y: 0, w: 4, h: 3 });
    const definition = {
      name: 'Conversations',
      timeRange: { from: ten, to: ten + 2 * HOUR },
      charts: [
        { id: 'pass', title: 'Thread pass rate', metric: 'thread_pass_rate', display: 'line', interval: 'hour', layout: layout(0) },
        { id: 'judge-mean', title: 'Consistency score', metric: 'thread_score_mean', evaluator: 'Consistency', display: 'number', layout: layout(4) },
        { id: 'helpful', title: 'Helpful (people)', metric: 'thread_review_score_mean', scoreConfigId: configs.helpful, display: 'number', layout: layout(8) },
      ],
    };
    const saved = await req('PUT', '/api/dashboards/conversations', definition);
    expect(saved.status, saved.text).toBe(200);
    const chart = async (id: string) => {
      const r = await req('POST', `/api/dashboards/conversations/charts/${id}/data`, {});
      expect(r.status, r.text).toBe(200);
      return r.body;
    };
    const pass = await chart('pass');
    expect(pass.value).toBe(0.75);
    expect(pass.series).toEqual([
      {
        name: 'Consistency',
        group: null,
        other: false,
        total: 0.75,
        filters: null,
        points: [
          { start: ten, value: 0.75 },
          { start: ten + HOUR, value: null },
          { start: ten + 2 * HOUR, value: null },
        ],
      },
    ]);
    // The query the chart read gives the same numbers through the analytics API.
    const same = await series(pass.query);
    expect(same.body.threadEvaluations[0].buckets.map((b: { pass_rate: number | null }) => b.pass_rate)).toEqual(pass.series[0].points.map((p: { value: number | null }) => p.value));
    expect((await chart('judge-mean')).value).toBe(0.75);
    const helpful = await chart('helpful');
    expect(helpful.value).toBeCloseTo(11 / 3, 10);
    expect(helpful.series.map((s: { name: string }) => s.name)).toEqual(['Helpful']);

    const bad: [object, string][] = [
      [{ metric: 'thread_pass_rate', groupBy: 'model' }, 'body.charts.0.groupBy'],
      [{ metric: 'thread_pass_rate', scoreConfigId: configs.helpful }, 'body.charts.0.scoreConfigId'],
      [{ metric: 'thread_review_score_mean', evaluator: 'Consistency' }, 'body.charts.0.evaluator'],
      [{ metric: 'thread_nope' }, 'body.charts.0.metric'],
    ];
    for (const [c, f] of bad) {
      const r = await req('PUT', '/api/dashboards/bad', { name: 'Bad', charts: [{ id: 'c', title: 'C', layout: layout(0), ...c }] });
      expect(r.status, `${JSON.stringify(c)}: ${r.text}`).toBe(400);
      expect(r.body.error.meta?.field ?? r.text).toBe(f);
    }
  });

  it('sorts the threads list by a review score, unscored threads last either way', async () => {
    const by = async (configId: string, sortDirection: 'asc' | 'desc') => {
      const r = await req('POST', '/api/threads', { sortByScore: configId, sortDirection });
      expect(r.status, r.text).toBe(200);
      return ids(r);
    };
    expect(await by(configs.helpful, 'desc')).toEqual(['trip-b', 'trip-c', 'trip-a', 'trip-d']);
    expect(await by(configs.helpful, 'asc')).toEqual(['trip-a', 'trip-c', 'trip-b', 'trip-d']);
    expect(await by(configs.consistent, 'asc')).toEqual(['trip-a', 'trip-b', 'trip-c', 'trip-d']);
    // Paged, with the total.
    const page2 = await req('POST', '/api/threads', { sortByScore: configs.helpful, pageSize: 2, page: 2 });
    expect(ids(page2)).toEqual(['trip-a', 'trip-d']);
    expect(page2.body.pagination.total).toBe(4);
    expect(page2.body.threads[0].review_scores.find((s: { name: string }) => s.name === 'Helpful')).toMatchObject({ count: 1, mean: 2 });

    expect(await field({ sortByScore: 'score_nope' })).toBe('body.sortByScore');
    expect(await field({ sortByScore: configs.tone })).toBe('body.sortByScore');
  });

  it('filters the threads list by a review score, naming the field of a filter that cannot fit its config', async () => {
    const filtered = async (reviewScore: object, extra: object = {}) => {
      const r = await req('POST', '/api/threads', { reviewScore, sortBy: 'thread_id', sortDirection: 'asc', ...extra });
      expect(r.status, r.text).toBe(200);
      return ids(r);
    };
    expect(await filtered({ configId: configs.helpful, min: 4 })).toEqual(['trip-b', 'trip-c']);
    expect(await filtered({ configId: configs.helpful, min: 2, max: 4 })).toEqual(['trip-a', 'trip-c']);
    expect(await filtered({ configId: configs.consistent, value: false })).toEqual(['trip-a']);
    expect(await filtered({ configId: configs.tone, value: 'calm' })).toEqual(['trip-b', 'trip-c']);
    expect(await filtered({ configId: configs.helpful })).toEqual(['trip-a', 'trip-b', 'trip-c']);
    // With the trace filters and a sort by the score.
    expect(await filtered({ configId: configs.tone, value: 'calm' }, { filters: { user_id: 'user-trip-c' } })).toEqual(['trip-c']);
    expect(await filtered({ configId: configs.helpful, min: 1 }, { sortByScore: configs.helpful, sortDirection: 'desc' })).toEqual(['trip-b', 'trip-c', 'trip-a']);
    // Another project's threads are not its threads.
    const theirs = await t.request('POST', '/api/threads', { token: other.adminToken, projectId: other.projectId, body: { reviewScore: { configId: configs.helpful } } });
    expect(theirs.status).toBe(400);

    expect(await field({ reviewScore: { configId: 'score_nope' } })).toBe('body.reviewScore.configId');
    expect(await field({ reviewScore: { configId: configs.consistent, value: 'maybe' } })).toBe('body.reviewScore.value');
    expect(await field({ reviewScore: { configId: configs.tone, value: 'angry' } })).toBe('body.reviewScore.value');
    expect(await field({ reviewScore: { configId: configs.tone, min: 1 } })).toBe('body.reviewScore.min');
    expect(await field({ reviewScore: { configId: configs.helpful, value: '3' } })).toBe('body.reviewScore.value');
    expect(await field({ reviewScore: { configId: configs.helpful, min: 4, max: 2 } })).toBe('body.reviewScore.max');
    expect(await field({ reviewScore: { configId: configs.helpful, min: 'high' } })).toBe('body.reviewScore.min');
  });
});
