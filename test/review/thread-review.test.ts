/**
 * Human review of whole threads: a review queue holds threads beside traces; the reviewer
 * claims a thread item, scores the conversation with the queue's score configs, and the scores
 * are stored against the thread (with the turns seen), listed on the thread's reviews and as
 * columns of the threads list. Thread monitors' results come from the loopback judge fake.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, databaseKinds, ManualClock, startApp, type Tenant, type TestApp } from '../support/harness.ts';
import { MINUTE, threadJudge, type ThreadJudge } from '../support/thread-judge.ts';

describe.each(databaseKinds)('thread review (%s)', (kind) => {
  let t: TestApp;
  let judge: ThreadJudge;
  let key: string;
  let other: Tenant;
  let queueId: string;
  const configs: Record<string, string> = {};
  let contradicted: string[];
  const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
  const req = (method: string, url: string, body?: unknown) => t.request(method, url, { authToken: key, body });
  const field = async (res: Promise<{ status: number; text: string; body: any }>) => {
    const r = await res;
    expect(r.status, r.text).toBe(400);
    return r.body.error.meta?.field as string;
  };

  beforeAll(async () => {
    t = await startApp(kind, { clock });
    key = t.creds.projectApiKey;
    other = await createTenant(t);
    judge = await threadJudge(t, clock, key);
    configs.consistent = (await req('POST', '/api/score-configs', { name: 'Consistent', kind: 'boolean' })).body.data.id;
    configs.helpful = (await req('POST', '/api/score-configs', { name: 'Helpful', kind: 'numeric', min: 1, max: 5 })).body.data.id;
    const queue = await req('POST', '/api/queues', { name: 'Conversations', scoreConfigIds: [configs.consistent, configs.helpful] });
    expect(queue.status, queue.text).toBe(201);
    queueId = queue.body.data.id;
    contradicted = await judge.thread('trip-a', ['09:15', '09:15', '14:40']);
    await judge.thread('trip-b', ['07:05', '07:05']);
    clock.advance(11 * MINUTE);
    await judge.runJobs();
  });
  afterAll(async () => {
    await t?.close();
    await judge?.fake.close();
  });

  it('refuses bad thread items and bad thread scores, naming the field', async () => {
    const items = `/api/queues/${queueId}/items`;
    expect(await field(req('POST', items, { threads: [] }))).toBe('body.threads');
    expect(await field(req('POST', items, { threads: [''] }))).toBe('body.threads.0');
    expect(await field(req('POST', items, { threads: ['x'.repeat(501)] }))).toBe('body.threads.0');
    expect(await field(req('POST', items, { threads: ['ok', 'bad\u0001id'] }))).toBe('body.threads.1');
    expect(await field(req('POST', items, { threads: ['trip-a'], items: [{ traceId: 'x' }] }))).toBe('body.items');
    expect(await field(req('POST', items, { threads: 'trip-a' }))).toBe('body.threads');
  });

  it('a reviewer scores a queued thread as one conversation; the scores show on the thread and in the threads list', async () => {
    const added = await req('POST', `/api/queues/${queueId}/items`, { threads: ['trip-a', 'trip-b'] });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toEqual({ added: 2, alreadyQueued: 0 });
    expect((await req('POST', `/api/queues/${queueId}/items`, { threads: ['trip-a'] })).body).toEqual({ added: 0, alreadyQueued: 1 });
    // A trace and a thread are different items, even of the same thread.
    expect((await req('POST', `/api/queues/${queueId}/items`, { items: [{ traceId: contradicted[0] }] })).body).toEqual({ added: 1, alreadyQueued: 0 });

    const next = await req('POST', `/api/queues/${queueId}/next`);
    expect(next.status, next.text).toBe(200);
    expect(next.body.data).toMatchObject({ threadId: 'trip-a', traceId: null, spanId: null, source: 'threads', status: 'pending' });
    const itemId = next.body.data.id as string;
    const complete = (body: unknown) => req('POST', `/api/queues/${queueId}/items/${itemId}/complete`, body);

    // Bad scores and a thumb are refused, naming the field; the item stays pending.
    expect(await field(complete({ scores: [{ configId: configs.consistent, value: false }] }))).toBe('body.scores');
    expect(await field(complete({ scores: [{ configId: configs.consistent, value: false }, { configId: configs.helpful, value: 9 }] }))).toBe('body.scores.1.value');
    expect(await field(complete({ scores: [{ configId: configs.consistent, value: 'no' }, { configId: configs.helpful, value: 2 }] }))).toBe('body.scores.0.value');
    expect(await field(complete({ isThumbsUp: true, scores: [{ configId: configs.consistent, value: false }, { configId: configs.helpful, value: 2 }] }))).toBe('body.isThumbsUp');

    const done = await complete({ comment: 'Turn 3 gives another time', scores: [{ configId: configs.consistent, value: false }, { configId: configs.helpful, value: 2 }] });
    expect(done.status, done.text).toBe(200);
    expect(done.body.annotation).toBeNull();
    expect(done.body.data).toMatchObject({ id: itemId, status: 'completed', threadId: 'trip-a' });
    expect(done.body.threadReview).toMatchObject({ threadId: 'trip-a', comment: 'Turn 3 gives another time', traceIds: contradicted });
    expect(done.body.threadReview.scores).toEqual([
      { configId: configs.consistent, name: 'Consistent', kind: 'boolean', value: false },
      { configId: configs.helpful, name: 'Helpful', kind: 'numeric', value: 2 },
    ]);
    const item = await req('GET', `/api/queues/${queueId}/items/${itemId}`);
    expect(item.body.threadReview.id).toBe(done.body.threadReview.id);
    expect(item.body.annotation).toBeNull();

    // The thread's reviews, and nothing stored against its traces.
    const reviews = await req('GET', '/api/threads/trip-a/reviews');
    expect(reviews.status, reviews.text).toBe(200);
    expect(reviews.body.data.map((r: { id: string }) => r.id)).toEqual([done.body.threadReview.id]);
    expect((await req('GET', '/api/threads/trip-b/reviews')).body.data).toEqual([]);
    const annotations = await req('GET', `/api/annotations/trace/${contradicted[0]}`);
    expect(annotations.body.data).toEqual([]);

    // The second thread: reviewed as consistent.
    const second = await req('POST', `/api/queues/${queueId}/next`);
    expect(second.body.data).toMatchObject({ threadId: 'trip-b' });
    const ok = await req('POST', `/api/queues/${queueId}/items/${second.body.data.id}/complete`, { scores: [{ configId: configs.consistent, value: true }, { configId: configs.helpful, value: 5 }] });
    expect(ok.status, ok.text).toBe(200);

    // The threads list: the judge's verdict and people's scores side by side.
    const list = await req('POST', '/api/threads', { sortBy: 'thread_id', sortDirection: 'asc' });
    expect(list.status, list.text).toBe(200);
    const byId = Object.fromEntries(list.body.threads.map((x: { thread_id: string }) => [x.thread_id, x]));
    expect(byId['trip-a'].scores).toEqual([expect.objectContaining({ name: 'Consistency', passed: false, turns: 3 })]);
    expect(byId['trip-a'].review_scores).toEqual([
      expect.objectContaining({ configId: configs.consistent, name: 'Consistent', count: 1, mean: 0, latest: false }),
      expect.objectContaining({ configId: configs.helpful, name: 'Helpful', count: 1, mean: 2, latest: 2 }),
    ]);
    expect(byId['trip-b'].review_scores).toEqual([
      expect.objectContaining({ name: 'Consistent', mean: 1, latest: true }),
      expect.objectContaining({ name: 'Helpful', mean: 5, latest: 5 }),
    ]);

    // Another project sees none of it.
    const theirs = await t.request('GET', '/api/threads/trip-a/reviews', { token: other.adminToken, projectId: other.projectId });
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.data).toEqual([]);
  });

  it('alerts watch thread monitors\' pass rate and mean score; bad thread rules are refused naming the field', async () => {
    const rule = (metric: object, extra: object = {}) => ({
      name: 'Threads failing',
      metric,
      windowMinutes: 60,
      condition: { kind: 'threshold', operator: 'below', value: 0.9, minCount: 1 },
      ...extra,
    });
    const preview = (body: object) => req('POST', '/api/alerts/rules/preview', body);
    expect(await field(preview(rule({ kind: 'thread_pass_rate' })))).toBe('metric.evaluator');
    expect(await field(preview(rule({ kind: 'thread_pass_rate', evaluator: 'No such monitor' })))).toBe('metric.evaluator');
    expect(await field(preview(rule({ kind: 'thread_pass_rate', evaluator: 'Consistency' }, { splitBy: 'model' })))).toBe('splitBy');
    expect(await field(preview(rule({ kind: 'thread_pass_rate', evaluator: 'Consistency' }, { filters: { labels: ['vip'] } })))).toBe('filters');

    // The two thread results (trip-a failed, trip-b passed) ran in one window: a pass rate of 1/2.
    clock.advance(61 * MINUTE);
    const passRate = await preview(rule({ kind: 'thread_pass_rate', evaluator: 'Consistency' }));
    expect(passRate.status, passRate.text).toBe(200);
    const counted = passRate.body.windows.filter((w: { count: number }) => w.count > 0);
    expect(counted.map((w: { value: number; count: number }) => [w.value, w.count])).toEqual([[0.5, 2]]);
    expect(passRate.body.fired).toBe(1);
    const split = await preview(rule({ kind: 'thread_pass_rate' }, { splitBy: 'evaluator' }));
    expect(split.status, split.text).toBe(200);
    expect(split.body.fires.map((f: { segment: string }) => f.segment)).toEqual(['Consistency']);
    // A pass/fail judge gives a score of 0 or 1: the mean score is the pass rate here.
    const mean = await preview(rule({ kind: 'thread_score_mean', evaluator: 'custom/consistent' }));
    expect(mean.status, mean.text).toBe(200);
    expect(mean.body.windows.filter((w: { count: number }) => w.count > 0).map((w: { value: number }) => w.value)).toEqual([0.5]);
  });
});
