/**
 * A thread monitor on a schedule: instead of waiting for each thread to go idle, it runs every
 * so many minutes on the UTC clock and evaluates the threads that got turns since their last
 * result. The clock is the test's; the judge is the loopback OpenAI-compatible fake
 * (support/thread-judge.ts), failing a conversation that states two departure times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';
import { MINUTE, threadJudge, type ThreadJudge } from '../support/thread-judge.ts';

describe.each(databaseKinds)('thread monitors on a schedule (%s)', (kind) => {
  let t: TestApp;
  let judge: ThreadJudge;
  let key: string;
  let monitorId: string;
  // 10:00 UTC: an hourly schedule's next runs are 11:00, 12:00, ...
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
  const at = (hhmm: string) => new Date(`2026-11-22T${hhmm}:00Z`).getTime();
  const req = (method: string, url: string, body?: unknown) => t.request(method, url, { authToken: key, body });
  const judgeCalls = () => judge.fake.requests.filter((r) => (r.body as { tools?: unknown[] }).tools?.length).length;
  const turns = new Map<string, number>();

  /** One more turn of a thread, stating a departure time. */
  async function turn(threadId: string, departs: string) {
    const n = (turns.get(threadId) ?? 0) + 1;
    turns.set(threadId, n);
    const now = clock.now().getTime();
    const res = await req('POST', '/api/collector', {
      trace_id: `${threadId}-t${n}`,
      metadata: { thread_id: threadId },
      spans: [
        {
          span_id: `${threadId}-t${n}-agent`,
          type: 'agent',
          input: { type: 'text', value: `Question ${n}` },
          output: { type: 'text', value: `Noted. Your flight departs at ${departs}.` },
          timestamps: { started_at: now, finished_at: now + 500 },
        },
      ],
    });
    expect(res.status, res.text).toBe(200);
  }
  const until = async (hhmm: string) => {
    clock.set(new Date(at(hhmm)));
    await judge.runJobs();
  };
  /** The scheduled monitor's results on a thread, newest first: [passed, turns covered]. */
  async function results(threadId: string) {
    const res = await req('GET', `/api/threads/${threadId}/evaluations`);
    expect(res.status, res.text).toBe(200);
    return (res.body.data as { monitor_id: string; passed: boolean; covered: { turns: number } }[]).filter((r) => r.monitor_id === monitorId).map((r) => [r.passed, r.covered.turns]);
  }

  beforeAll(async () => {
    t = await startApp(kind, { clock });
    key = t.creds.projectApiKey;
    judge = await threadJudge(t, clock, key);
    // The helper's own monitor waits for idleness: paused, so only the scheduled one runs.
    const paused = await req('PATCH', `/api/monitors/${judge.monitorId}`, { enabled: false });
    expect(paused.body).toMatchObject({ enabled: false, idle_minutes: 10 });
  });
  afterAll(async () => {
    await t?.close();
    await judge?.fake.close();
  });

  it('refuses a schedule that is out of bounds, off the clock, on a trace monitor or beside an idle time, naming the field', async () => {
    const thread = { name: 'x', evaluator: 'custom/consistent', unit: 'thread' };
    const cases: [unknown, string][] = [
      [{ ...thread, schedule_minutes: 0 }, 'body.schedule_minutes'],
      [{ ...thread, schedule_minutes: 4 }, 'body.schedule_minutes'],
      [{ ...thread, schedule_minutes: 10_081 }, 'body.schedule_minutes'],
      [{ ...thread, schedule_minutes: 2.5 }, 'body.schedule_minutes'],
      [{ ...thread, schedule_minutes: 7 }, 'body.schedule_minutes'],
      [{ ...thread, schedule_minutes: 100 }, 'body.schedule_minutes'],
      [{ ...thread, schedule_minutes: 2000 }, 'body.schedule_minutes'],
      [{ ...thread, schedule_minutes: '60' }, 'body.schedule_minutes'],
      [{ ...thread, schedule_minutes: 60, idle_minutes: 10 }, 'body.schedule_minutes'],
      [{ name: 'x', evaluator: 'custom/consistent', schedule_minutes: 60 }, 'body.schedule_minutes'],
    ];
    for (const [body, field] of cases) {
      const res = await req('POST', '/api/monitors', body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.body.error.meta.field, res.text).toBe(field);
    }
    const off = await req('POST', '/api/monitors', { ...thread, schedule_minutes: 7 });
    expect(off.body.error.message).toContain('divide a day');
    const patch = await req('PATCH', `/api/monitors/${judge.monitorId}`, { schedule_minutes: 45 * 60 });
    expect(patch.status, patch.text).toBe(400);
    expect(patch.body.error.meta.field).toBe('body.schedule_minutes');
    const both = await req('PATCH', `/api/monitors/${judge.monitorId}`, { schedule_minutes: 60, idle_minutes: 5 });
    expect(both.status, both.text).toBe(400);
    expect(both.body.error.meta.field).toBe('body.schedule_minutes');
    const traceMonitor = await req('POST', '/api/monitors', { name: 'Per trace', evaluator: 'custom/consistent', enabled: false });
    expect(traceMonitor.status, traceMonitor.text).toBe(200);
    expect(traceMonitor.body).toMatchObject({ unit: 'trace', idle_minutes: null, schedule_minutes: null });
    const onTrace = await req('PATCH', `/api/monitors/${traceMonitor.body.id}`, { schedule_minutes: 60 });
    expect(onTrace.status, onTrace.text).toBe(400);
    expect(onTrace.body.error.meta.field).toBe('body.schedule_minutes');
    // Nothing was changed by the refusals.
    expect((await req('GET', `/api/monitors/${judge.monitorId}`)).body).toMatchObject({ idle_minutes: 10, schedule_minutes: null });
  });

  it('runs on the hour, evaluating the threads that changed since their last result, however busy they still are', async () => {
    const created = await req('POST', '/api/monitors', { name: 'Hourly consistency', evaluator: 'custom/consistent', unit: 'thread', schedule_minutes: 60 });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ unit: 'thread', schedule_minutes: 60, idle_minutes: null });
    monitorId = created.body.id;

    for (const d of ['09:15', '09:15', '14:40']) {
      await turn('sched-contradicted', d);
      clock.advance(MINUTE);
    }
    await turn('sched-consistent', '07:05');
    await until('10:40');
    expect(judgeCalls()).toBe(0);
    // A turn at 10:58 does not push the run back, as it would an idle wait.
    await until('10:58');
    await turn('sched-consistent', '07:05');
    await until('10:59');
    expect(judgeCalls()).toBe(0);
    await until('11:00');
    expect(judgeCalls()).toBe(2);
    expect(await results('sched-contradicted')).toEqual([[false, 3]]);
    expect(await results('sched-consistent')).toEqual([[true, 2]]);

    // A new turn at 11:20: evaluated again at 12:00 (not once idle at 11:50), the other thread left alone.
    await until('11:20');
    await turn('sched-consistent', '21:00');
    await until('11:55');
    expect(judgeCalls()).toBe(2);
    await until('12:00');
    expect(judgeCalls()).toBe(3);
    expect(await results('sched-consistent')).toEqual([
      [false, 3],
      [true, 2],
    ]);
    expect(await results('sched-contradicted')).toEqual([[false, 3]]);
    // Nothing changed since: the next runs evaluate nothing.
    await until('14:00');
    expect(judgeCalls()).toBe(3);
  });

  it('moves the threads already waiting when the trigger changes', async () => {
    await until('14:10');
    await turn('sched-contradicted', '09:15');
    // Due at the hourly run at 15:00; switched to "once idle for 10 minutes" at 14:12, due at 14:22.
    await until('14:12');
    const idle = await req('PATCH', `/api/monitors/${monitorId}`, { idle_minutes: 10 });
    expect(idle.status, idle.text).toBe(200);
    expect(idle.body).toMatchObject({ idle_minutes: 10, schedule_minutes: null });
    await until('14:21');
    expect(judgeCalls()).toBe(3);
    await until('14:22');
    expect(judgeCalls()).toBe(4);
    expect((await results('sched-contradicted'))[0]).toEqual([false, 4]);

    // Back on a schedule, daily: a turn at 14:30 waits for midnight UTC.
    const daily = await req('PATCH', `/api/monitors/${monitorId}`, { schedule_minutes: 1440 });
    expect(daily.body).toMatchObject({ idle_minutes: null, schedule_minutes: 1440 });
    await until('14:30');
    await turn('sched-consistent', '21:00');
    await until('23:59');
    expect(judgeCalls()).toBe(4);
    clock.set(new Date('2026-11-23T00:00:00Z'));
    await judge.runJobs();
    expect(judgeCalls()).toBe(5);
    // schedule_minutes null goes back to waiting for idleness, with the default idle time.
    const back = await req('PATCH', `/api/monitors/${monitorId}`, { schedule_minutes: null });
    expect(back.body).toMatchObject({ idle_minutes: 30, schedule_minutes: null });
  });
});
