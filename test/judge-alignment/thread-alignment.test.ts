/**
 * Thread scores feed the judge alignment: a judge that evaluated whole threads (a thread
 * monitor) is paired with people's scores of the same threads (review queues' thread items),
 * as its trace results are with trace scores. The judge is the loopback fake.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';
import { MINUTE, threadJudge, type ThreadJudge } from '../support/thread-judge.ts';

describe.each(databaseKinds)('judge alignment on threads (%s)', (kind) => {
  let t: TestApp;
  let judge: ThreadJudge;
  let key: string;
  let configId: string;
  const lastTurn: Record<string, string> = {};
  const clock = new ManualClock(new Date('2026-11-24T10:00:00Z'));
  const req = (method: string, url: string, body?: unknown) => t.request(method, url, { authToken: key, body });

  beforeAll(async () => {
    t = await startApp(kind, { clock });
    key = t.creds.projectApiKey;
    judge = await threadJudge(t, clock, key);
    configId = (await req('POST', '/api/score-configs', { name: 'Consistent', kind: 'boolean' })).body.data.id;
    // The judge fails the two threads that change the departure time and passes the other two.
    for (const [id, departs] of Object.entries({ 'th-1': ['09:15', '14:40'], 'th-2': ['07:05', '07:05'], 'th-3': ['08:00', '08:00', '08:00'], 'th-4': ['10:10', '11:11'] })) {
      lastTurn[id] = (await judge.thread(id, departs)).at(-1)!;
    }
    clock.advance(11 * MINUTE);
    await judge.runJobs();
  });
  afterAll(async () => {
    await t?.close();
    await judge?.fake.close();
  });

  it('pairs the thread judge with people\'s thread scores; a disagreement names the thread', async () => {
    const queue = await req('POST', '/api/queues', { name: 'Threads', scoreConfigIds: [configId] });
    expect(queue.status, queue.text).toBe(201);
    const q = queue.body.data.id as string;
    expect((await req('POST', `/api/queues/${q}/items`, { threads: ['th-1', 'th-2', 'th-3', 'th-4'] })).body.added).toBe(4);
    // People agree with the judge on th-1, th-2 and th-4; on th-3 they say it was not consistent.
    const verdicts: Record<string, boolean> = { 'th-1': false, 'th-2': true, 'th-3': false, 'th-4': false };
    for (let i = 0; i < 4; i++) {
      const next = await req('POST', `/api/queues/${q}/next`);
      const threadId = next.body.data.threadId as string;
      const done = await req('POST', `/api/queues/${q}/items/${next.body.data.id}/complete`, { scores: [{ configId, value: verdicts[threadId] }] });
      expect(done.status, done.text).toBe(200);
    }

    const judges = await req('GET', '/api/judge-alignment/judges');
    expect(judges.status, judges.text).toBe(200);
    expect(judges.body.data).toContainEqual(expect.objectContaining({ evaluator: 'custom/consistent', results: 4 }));

    const res = await req('GET', `/api/judge-alignment?evaluator=${encodeURIComponent('custom/consistent')}&scoreConfig=${configId}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.n).toBe(4);
    // rows: people (fail, pass); columns: the judge (fail, pass)
    expect(res.body.confusion).toEqual([
      [2, 1],
      [0, 1],
    ]);
    expect(res.body.disagreements).toEqual([expect.objectContaining({ threadId: 'th-3', traceId: lastTurn['th-3'], human: false, judge: true })]);
    expect(res.body.passRate).toMatchObject({ judged: 4, passed: 2, raw: 0.5 });
  });
});
