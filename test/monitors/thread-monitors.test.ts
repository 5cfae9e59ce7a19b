/**
 * A monitor whose unit is a thread: once a thread has been idle for the monitor's idle time,
 * its evaluator reads the whole conversation ({{conversation}} and friends) and the result is
 * stored against the thread with the turns it covered. The judge is the loopback
 * OpenAI-compatible fake, scripted to compare the facts the assistant stated across the
 * conversation text it is sent: only a judge that sees every turn can catch a contradiction
 * between turn 1 and turn 5.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, toolCallReply, type FakeServer, type RecordedRequest } from '../evaluators/fake-servers.ts';
import { createTenant, databaseKinds, ManualClock, startApp, type Tenant, type TestApp } from '../support/harness.ts';

const MINUTE = 60_000;

/** The facts "the flight departs at HH:MM" the assistant stated in a judge's prompt. */
function departures(prompt: string): string[] {
  return [...prompt.matchAll(/Assistant: [^\n]*departs at (\d\d:\d\d)/g)].map((m) => m[1]);
}

describe.each(databaseKinds)('thread monitors (%s)', (kind) => {
  let t: TestApp;
  let fake: FakeServer;
  let key: string;
  let other: Tenant;
  let monitorId: string;
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
  const judgeCalls = () => fake.requests.filter((r) => (r.body as { tools?: unknown[] }).tools?.length);
  const promptOf = (r: RecordedRequest) => (r.body as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === 'user')?.content ?? '';
  const req = (method: string, url: string, body?: unknown) => t.request(method, url, { authToken: key, body });

  /** One turn of a thread: the user's question, a tool call, the assistant's answer. */
  async function turn(threadId: string, n: number, question: string, answer: string, options: { user?: string; error?: boolean } = {}) {
    const at = clock.now().getTime();
    const traceId = `${threadId}-t${n}`;
    const res = await req('POST', '/api/collector', {
      trace_id: traceId,
      metadata: { thread_id: threadId, user_id: options.user ?? `user-${threadId}` },
      spans: [
        { span_id: `${traceId}-agent`, type: 'agent', input: { type: 'text', value: question }, output: { type: 'text', value: answer }, timestamps: { started_at: at, finished_at: at + 900 }, ...(options.error ? { error: { message: 'boom' } } : {}) },
        {
          span_id: `${traceId}-tool`,
          parent_id: `${traceId}-agent`,
          type: 'tool',
          name: 'flight_lookup',
          input: { type: 'json', value: { flight: 'SG101' } },
          output: { type: 'json', value: { status: 'scheduled' } },
          timestamps: { started_at: at + 100, finished_at: at + 300 },
        },
      ],
    });
    expect(res.status, res.text).toBe(200);
    return traceId;
  }

  /** A thread of `n` turns, a minute apart; `departs[i]` is the time the assistant states in turn i + 1. */
  async function thread(threadId: string, departs: string[]) {
    for (let i = 0; i < departs.length; i++) {
      await turn(threadId, i + 1, `Question ${i + 1} about my trip`, `Noted. Your flight departs at ${departs[i]} from gate B${i}.`);
      clock.advance(MINUTE);
    }
  }

  async function runJobs() {
    for (let i = 0; i < 5; i++) await t.app.services.jobs.runDue();
  }

  const evaluationsOf = async (threadId: string) => {
    const res = await req('GET', `/api/threads/${encodeURIComponent(threadId)}/evaluations`);
    expect(res.status, res.text).toBe(200);
    return res.body.data as { passed: boolean | null; status: string; name: string; details: string; covered: { turns: number; trace_ids: string[] }; monitor_id: string }[];
  };

  beforeAll(async () => {
    fake = await startFakeServer();
    fake.fallback = (r: RecordedRequest) => {
      const prompt = promptOf(r);
      const facts = departures(prompt);
      const consistent = new Set(facts).size <= 1;
      return toolCallReply('verdict', { reasoning: consistent ? `the assistant said ${facts[0]} throughout` : `turn 1 said ${facts[0]}, later ${facts.find((f) => f !== facts[0])}`, passed: consistent });
    };
    t = await startApp(kind, { clock });
    key = t.creds.projectApiKey;
    other = await createTenant(t);
    const provider = await t.request('POST', '/api/model-providers', {
      token: t.creds.adminApiKey,
      projectId: t.creds.project.id,
      body: { name: 'local', kind: 'openai_compatible', api_key: 'fake-key-5678', base_url: `${fake.url}/v1`, models: ['gpt-4o-mini'] },
    });
    expect(provider.status, provider.text).toBe(201);
    const judge = await req('POST', '/api/custom-evaluators', {
      slug: 'consistent',
      name: 'Consistent',
      prompt: 'A conversation of {{turns}} turns, starting with "{{first_input}}" and ending with "{{last_output}}":\n\n{{conversation}}\n\nDoes the assistant ever contradict what it said earlier?',
      model: 'local/gpt-4o-mini',
      answer: { type: 'pass_fail' },
    });
    expect(judge.status, judge.text).toBe(201);
    const monitor = await req('POST', '/api/monitors', { name: 'Consistency', evaluator: 'custom/consistent', unit: 'thread', idle_minutes: 10 });
    expect(monitor.status, monitor.text).toBe(200);
    expect(monitor.body).toMatchObject({ unit: 'thread', idle_minutes: 10 });
    monitorId = monitor.body.id;
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('refuses an idle time out of bounds and settings of the other unit, naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'x', evaluator: 'custom/consistent', unit: 'thread', idle_minutes: 0 }, 'body.idle_minutes'],
      [{ name: 'x', evaluator: 'custom/consistent', unit: 'thread', idle_minutes: 10_081 }, 'body.idle_minutes'],
      [{ name: 'x', evaluator: 'custom/consistent', unit: 'thread', idle_minutes: 2.5 }, 'body.idle_minutes'],
      [{ name: 'x', evaluator: 'custom/consistent', idle_minutes: 10 }, 'body.idle_minutes'],
      [{ name: 'x', evaluator: 'custom/consistent', unit: 'session' }, 'body.unit'],
    ];
    for (const [body, field] of cases) {
      const res = await req('POST', '/api/monitors', body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.body.error.meta.field, res.text).toContain(field);
    }
    const patch = await req('PATCH', `/api/monitors/${monitorId}`, { idle_minutes: 20_000 });
    expect(patch.status, patch.text).toBe(400);
    expect(patch.body.error.meta.field).toContain('body.idle_minutes');
    const backfill = await req('POST', `/api/monitors/${monitorId}/backfill/preview`, { startDate: 0 });
    expect(backfill.status, backfill.text).toBe(400);
    expect(backfill.body.error.meta.field).toBe('unit');
    // A default idle time when none is given.
    const dflt = await req('POST', '/api/monitors', { name: 'Default idle', evaluator: 'custom/consistent', unit: 'thread', enabled: false });
    expect(dflt.body).toMatchObject({ unit: 'thread', idle_minutes: 30 });
    expect((await req('DELETE', `/api/monitors/${dflt.body.id}`)).status).toBe(200);
    // Nobody else sees the monitor's threads.
    const theirs = await t.request('POST', '/api/threads', { token: other.adminToken, projectId: other.projectId, body: {} });
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.threads).toEqual([]);
  });

  it('fails the thread whose turn 5 contradicts turn 1 and passes the others, once each is idle', async () => {
    await thread('trip-contradicted', ['09:15', '09:15', '09:15', '09:15', '14:40']);
    await thread('trip-consistent', ['07:05', '07:05', '07:05', '07:05', '07:05']);
    await thread('trip-short', ['18:30', '18:30']);
    // Not idle for 10 minutes yet (the last turn came 1 minute ago): nothing runs.
    await runJobs();
    expect(judgeCalls()).toHaveLength(0);
    clock.advance(10 * MINUTE);
    await runJobs();
    expect(judgeCalls()).toHaveLength(3);

    const contradicted = await evaluationsOf('trip-contradicted');
    expect(contradicted).toHaveLength(1);
    expect(contradicted[0]).toMatchObject({ name: 'Consistency', status: 'processed', passed: false, monitor_id: monitorId });
    expect(contradicted[0].details).toContain('09:15');
    expect(contradicted[0].covered).toEqual({ turns: 5, trace_ids: [1, 2, 3, 4, 5].map((n) => `trip-contradicted-t${n}`) });
    expect((await evaluationsOf('trip-consistent'))[0]).toMatchObject({ passed: true, covered: { turns: 5 } });
    expect((await evaluationsOf('trip-short'))[0]).toMatchObject({ passed: true, covered: { turns: 2 } });

    // The judge read the whole conversation in order, with the tool calls, and the other variables.
    const prompt = promptOf(judgeCalls().find((r) => promptOf(r).includes('trip-contradicted') || departures(promptOf(r)).includes('14:40'))!);
    expect(prompt).toContain('A conversation of 5 turns, starting with "Question 1 about my trip" and ending with "Noted. Your flight departs at 14:40 from gate B4."');
    expect(prompt).toContain('[Turn 1]\nUser: Question 1 about my trip\nTool flight_lookup: {"flight":"SG101"} -> {"status":"scheduled"}\nAssistant: Noted. Your flight departs at 09:15 from gate B0.');
    expect(prompt.indexOf('[Turn 1]')).toBeLessThan(prompt.indexOf('[Turn 5]'));
    expect(departures(prompt)).toEqual(['09:15', '09:15', '09:15', '09:15', '14:40']);
  });

  it('evaluates a thread again once idle after new turns, and not when nothing changed', async () => {
    const before = judgeCalls().length;
    clock.advance(30 * MINUTE);
    await runJobs();
    expect(judgeCalls()).toHaveLength(before);

    // The consistent thread gets a sixth turn contradicting the first.
    await turn('trip-consistent', 6, 'And the time again?', 'Your flight departs at 21:00 from gate C1.');
    clock.advance(5 * MINUTE);
    await runJobs();
    expect(judgeCalls()).toHaveLength(before); // not idle yet
    // Another turn pushes the wait back.
    await turn('trip-consistent', 7, 'Thanks', 'You are welcome.');
    clock.advance(6 * MINUTE);
    await runJobs();
    expect(judgeCalls()).toHaveLength(before);
    clock.advance(5 * MINUTE);
    await runJobs();
    expect(judgeCalls()).toHaveLength(before + 1);

    const results = await evaluationsOf('trip-consistent');
    expect(results.map((r) => [r.passed, r.covered.turns])).toEqual([
      [false, 7],
      [true, 5],
    ]);
    // The other threads were left alone.
    expect(await evaluationsOf('trip-contradicted')).toHaveLength(1);
  });

  it('lists threads with turns, duration, cost, errors, users and their scores; sorted, filtered and paged', async () => {
    await turn('trip-error', 1, 'Hello?', 'Sorry, something failed.', { error: true, user: 'ana' });
    const list = await req('POST', '/api/threads', { sortBy: 'turns', sortDirection: 'desc' });
    expect(list.status, list.text).toBe(200);
    expect(list.body.threads.map((x: { thread_id: string }) => x.thread_id)).toEqual(['trip-consistent', 'trip-contradicted', 'trip-short', 'trip-error']);
    expect(list.body.pagination).toEqual({ page: 1, pageSize: 50, total: 4 });
    const consistent = list.body.threads[0];
    expect(consistent).toMatchObject({ turns: 7, errors: 0, users: ['user-trip-consistent'], user_count: 1 });
    expect(consistent.duration_ms).toBe(consistent.last_seen + 900 - consistent.first_seen);
    expect(consistent.scores).toEqual([{ name: 'Consistency', monitor_id: monitorId, status: 'processed', passed: false, score: 0, label: 'fail', turns: 7 }]);

    // The trace filter picks threads by any of their traces.
    const failing = await req('POST', '/api/threads', { filters: { has_error: true } });
    expect(failing.body.threads.map((x: { thread_id: string }) => x.thread_id)).toEqual(['trip-error']);
    expect(failing.body.threads[0]).toMatchObject({ errors: 1, users: ['ana'], scores: [] });
    const byUser = await req('POST', '/api/threads', { filters: { user_id: 'user-trip-short' } });
    expect(byUser.body.threads.map((x: { thread_id: string }) => x.thread_id)).toEqual(['trip-short']);
    const search = await req('POST', '/api/threads', { search: 'CONTRA' });
    expect(search.body.threads.map((x: { thread_id: string }) => x.thread_id)).toEqual(['trip-contradicted']);
    const page2 = await req('POST', '/api/threads', { sortBy: 'thread_id', sortDirection: 'asc', pageSize: 3, page: 2 });
    expect(page2.body.threads.map((x: { thread_id: string }) => x.thread_id)).toEqual(['trip-short']);
    const past = await req('POST', '/api/threads', { page: 9 });
    expect(past.body).toMatchObject({ threads: [], pagination: { total: 4 } });

    const bad = await req('POST', '/api/threads', { sortBy: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.meta.field ?? bad.text).toContain('sortBy');
  });

  it("filters and sorts the threads list by each thread's newest result of a thread monitor", async () => {
    const ids = async (body: unknown) => {
      const res = await req('POST', '/api/threads', body);
      expect(res.status, res.text).toBe(200);
      return res.body.threads.map((x: { thread_id: string }) => x.thread_id);
    };
    // trip-consistent passed at 5 turns, then failed at 7: its newest result counts.
    expect(await ids({ evaluation: { name: 'Consistency', passed: false } })).toEqual(['trip-consistent', 'trip-contradicted']);
    expect(await ids({ evaluation: { name: 'Consistency', passed: true } })).toEqual(['trip-short']);
    expect(await ids({ evaluation: { name: 'Consistency', status: 'processed', min: 0.5 } })).toEqual(['trip-short']);
    expect(await ids({ evaluation: { name: 'Consistency', max: 0.5 }, sortBy: 'thread_id', sortDirection: 'asc' })).toEqual(['trip-consistent', 'trip-contradicted']);
    expect(await ids({ evaluation: { name: 'Consistency', status: 'error' } })).toEqual([]);
    // With the trace filters: both must hold.
    expect(await ids({ evaluation: { name: 'Consistency', passed: false }, filters: { user_id: 'user-trip-contradicted' } })).toEqual(['trip-contradicted']);
    expect(await ids({ evaluation: { name: 'Consistency', passed: false }, filters: { user_id: 'user-trip-short' } })).toEqual([]);
    const counted = await req('POST', '/api/threads', { evaluation: { name: 'Consistency', passed: false }, pageSize: 1 });
    expect(counted.body.pagination.total).toBe(2);

    // Sorted by the newest score (a pass 1, a fail 0); the thread never evaluated comes last either way.
    expect(await ids({ sortByEvaluation: 'Consistency', sortDirection: 'desc' })).toEqual(['trip-short', 'trip-contradicted', 'trip-consistent', 'trip-error']);
    expect(await ids({ sortByEvaluation: 'Consistency', sortDirection: 'asc' })).toEqual(['trip-consistent', 'trip-contradicted', 'trip-short', 'trip-error']);
    expect(await ids({ sortByEvaluation: 'Consistency', sortDirection: 'asc', pageSize: 2, page: 2 })).toEqual(['trip-short', 'trip-error']);

    const cases: [unknown, string][] = [
      [{ evaluation: { name: 'Helpfulness', passed: false } }, 'body.evaluation.name'],
      [{ evaluation: { passed: false } }, 'body.evaluation.name'],
      [{ evaluation: { name: 'Consistency', min: 1, max: 0 } }, 'body.evaluation.max'],
      [{ evaluation: { name: 'Consistency', passed: 'no' } }, 'body.evaluation.passed'],
      [{ evaluation: { name: 'Consistency', verdict: 'fail' } }, 'body.evaluation'],
      [{ sortByEvaluation: 'Helpfulness' }, 'body.sortByEvaluation'],
      [{ sortByEvaluation: '' }, 'body.sortByEvaluation'],
    ];
    for (const [body, field] of cases) {
      const res = await req('POST', '/api/threads', body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.body.error.meta.field, res.text).toContain(field);
    }
    // Another project has no thread monitor of that name.
    const theirs = await t.request('POST', '/api/threads', { token: other.adminToken, projectId: other.projectId, body: { sortByEvaluation: 'Consistency' } });
    expect(theirs.status, theirs.text).toBe(400);
  });

  it('gives thread scores as an analytics series over time, per thread monitor', async () => {
    const end = clock.now().getTime();
    const res = await req('POST', '/api/analytics/timeseries', { startDate: end - 3 * 3_600_000, endDate: end, interval: 'hour' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.interval).toBe('hour');
    expect(res.body.threadEvaluations.map((x: { name: string }) => x.name)).toEqual(['Consistency']);
    const buckets = res.body.threadEvaluations[0].buckets as { evaluated: number; passed: number; failed: number; errors: number; pass_rate: number | null; mean_score: number | null }[];
    expect(buckets.length).toBeGreaterThanOrEqual(3);
    const sum = (k: 'evaluated' | 'passed' | 'failed' | 'errors') => buckets.reduce((a, x) => a + x[k], 0);
    // Four results: the contradicted thread failed, the short one passed, the consistent one passed then failed after its new turns.
    expect([sum('evaluated'), sum('passed'), sum('failed'), sum('errors')]).toEqual([4, 2, 2, 0]);
    const first = buckets.find((x) => x.evaluated === 3)!;
    expect(first.pass_rate).toBeCloseTo(2 / 3, 10);
    expect(first.mean_score).toBeCloseTo(2 / 3, 10);
    // Another project sees nothing.
    const theirs = await t.request('POST', '/api/analytics/timeseries', { token: other.adminToken, projectId: other.projectId, body: { startDate: end - 3 * 3_600_000, endDate: end } });
    expect(theirs.body.threadEvaluations).toEqual([]);
  });
});
