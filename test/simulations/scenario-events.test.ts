/**
 * POST /api/scenario-events as LangWatch's Scenario package posts it, with the faults a queue of
 * posts produces: events out of order, repeated, late; and the bad input a client can send.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { MAX_EVENTS_PER_RUN } from '../../src/modules/simulations/schemas.ts';
import { databaseKinds, startApp, type TestApp } from '../support/harness.ts';

const T0 = 1_790_000_000_000;

describe.each(databaseKinds)('scenario events (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t?.close());

  const post = (body: unknown) => t.request('POST', '/api/scenario-events', { authToken: t.creds.projectApiKey, body });
  const read = (url: string) => t.request('GET', url, { authToken: t.creds.projectApiKey });
  const ids = (run: string, set = 'faults') => ({ batchRunId: `batch-${set}`, scenarioId: 'scenario-1', scenarioRunId: run, scenarioSetId: set });
  const said = (...texts: string[]) => texts.map((content, i) => ({ id: `m${i}`, role: i % 2 ? 'assistant' : 'user', content }));
  const started = (run: string, at: number, set?: string) => ({ type: 'SCENARIO_RUN_STARTED', timestamp: at, ...ids(run, set), metadata: { name: 'Refund request', description: 'A customer wants a refund' } });
  const snapshot = (run: string, at: number, messages: unknown[], set?: string) => ({ type: 'SCENARIO_MESSAGE_SNAPSHOT', timestamp: at, ...ids(run, set), messages });
  const finished = (run: string, at: number, verdict: 'success' | 'failure', set?: string) => ({
    type: 'SCENARIO_RUN_FINISHED',
    timestamp: at,
    ...ids(run, set),
    status: verdict === 'success' ? 'SUCCESS' : 'FAILED',
    results: { verdict, reasoning: 'judged', metCriteria: verdict === 'success' ? ['refund offered'] : [], unmetCriteria: verdict === 'success' ? [] : ['refund offered'] },
  });

  it('answers 201 {success: true} as LangWatch does, and the run reads back', async () => {
    const res = await post(started('run-ok', T0));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ success: true });
    await post(snapshot('run-ok', T0 + 10, said('I want a refund', 'Sure, here it is')));
    await post(finished('run-ok', T0 + 20, 'success'));
    const run = await read('/api/simulations/runs/run-ok');
    expect(run.body).toMatchObject({
      scenarioRunId: 'run-ok',
      name: 'Refund request',
      status: 'SUCCESS',
      timestamp: T0,
      finishedAt: T0 + 20,
      durationMs: 20,
      messageCount: 2,
      results: { verdict: 'success', metCriteria: ['refund offered'], unmetCriteria: [], reasoning: 'judged', error: null },
    });
  });

  it('out of order, repeated and late events: no duplicate, no older conversation over a newer one', async () => {
    // The snapshot arrives before the start: the run is made by it.
    expect((await post(snapshot('run-shuffled', T0 + 30, said('a', 'b', 'c', 'd')))).status).toBe(201);
    expect((await read('/api/simulations/runs/run-shuffled')).body).toMatchObject({ status: 'IN_PROGRESS', messageCount: 4, results: null });
    await post(started('run-shuffled', T0));
    // An older snapshot (two messages) arriving late does not replace the newer one.
    await post(snapshot('run-shuffled', T0 + 10, said('a', 'b')));
    await post(finished('run-shuffled', T0 + 40, 'failure'));
    await post(finished('run-shuffled', T0 + 40, 'failure'));
    const run = (await read('/api/simulations/runs/run-shuffled')).body;
    expect(run).toMatchObject({ name: 'Refund request', status: 'FAILED', timestamp: T0, messageCount: 4 });
    expect(run.messages.map((m: { content: string }) => m.content)).toEqual(['a', 'b', 'c', 'd']);
    const batch = (await read('/api/simulations/batches/batch-faults/runs')).body.runs;
    expect(batch.map((r: { scenarioRunId: string }) => r.scenarioRunId)).toEqual(['run-ok', 'run-shuffled']);
  });

  it('streamed pieces of a message are acknowledged and store nothing', async () => {
    const res = await post({ type: 'SCENARIO_TEXT_MESSAGE_CONTENT', timestamp: T0, ...ids('run-streamed'), messageId: 'm1', delta: 'Hel' });
    expect(res.status).toBe(201);
    expect((await read('/api/simulations/runs/run-streamed')).status).toBe(404);
  });

  it('bad input: 400 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ ...started('x', T0), type: 'SCENARIO_SOMETHING' }, 'body.type'],
      [{ ...started('x', T0), scenarioRunId: '' }, 'body.scenarioRunId'],
      [{ ...started('x', T0), timestamp: 'yesterday' }, 'body.timestamp'],
      [{ ...finished('x', T0, 'success'), status: 'DONE' }, 'body.status'],
      [{ ...finished('x', T0, 'success'), results: { verdict: 'maybe', metCriteria: [], unmetCriteria: [] } }, 'body.results.verdict'],
      // Limits: messages in one snapshot, and one message's text.
      [snapshot('x', T0, Array.from({ length: 2_001 }, (_, i) => ({ id: `m${i}`, role: 'user', content: 'hi' }))), 'body.messages'],
      [snapshot('x', T0, [{ role: 'user', content: 'x'.repeat(1_000_001) }]), 'body.messages.0.content'],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect(res.status, field).toBe(400);
      expect(res.body.error.meta.field, JSON.stringify(res.body)).toBe(field);
    }
    expect((await read('/api/simulations/runs/x')).status).toBe(404);
    const unauthenticated = await t.request('POST', '/api/scenario-events', { body: started('y', T0) });
    expect(unauthenticated.status).toBe(401);
  });

  it('sets and batches count passes, failures and runs in progress', async () => {
    await post(started('run-open', T0 + 50));
    const sets = (await read('/api/simulations/sets')).body.sets;
    expect(sets).toContainEqual({ scenarioSetId: 'faults', batches: 1, runs: 3, passed: 1, failed: 1, inProgress: 1, passRate: 0.5, lastRunAt: T0 + 50 });
    const batches = (await read('/api/simulations/sets/faults/batches')).body.batches;
    expect(batches).toEqual([{ batchRunId: 'batch-faults', scenarioSetId: 'faults', label: null, runs: 3, passed: 1, failed: 1, inProgress: 1, passRate: 0.5, startedAt: T0, finishedAt: null }]);
    expect((await read('/api/simulations/sets/nope/batches')).status).toBe(404);
  });

  it('with masking on, the conversation and the reasoning are stored redacted', async () => {
    const privacy = await t.request('PUT', '/api/privacy/settings', { token: t.creds.adminApiKey, projectId: t.creds.project.id, body: { mode: 'mask' } });
    expect(privacy.status, JSON.stringify(privacy.body)).toBe(200);
    await post(started('run-private', T0, 'private'));
    await post(snapshot('run-private', T0 + 1, said('Mail me at jane.doe@example.com', 'Noted.'), 'private'));
    const run = (await read('/api/simulations/runs/run-private')).body;
    expect(JSON.stringify(run.messages)).not.toContain('jane.doe@example.com');
    expect(run.messages[0].content).toContain('<EMAIL_ADDRESS>');
    await t.request('PUT', '/api/privacy/settings', { token: t.creds.adminApiKey, projectId: t.creds.project.id, body: { mode: 'off' } });
  });

  it('the 10,000th event of a run is taken, the next is refused with a 400 naming the limit, and the run keeps what it had', async () => {
    expect((await post(started('run-full', T0, 'limits'))).status).toBe(201);
    // As if 9,998 more events had come (posting them takes minutes): the run's count, set where the store keeps it.
    await t.db.orm.execute(sql`UPDATE simulation_runs SET events = 9999 WHERE project_id = ${t.creds.project.id} AND scenario_run_id = 'run-full'`);
    const last = await post(snapshot('run-full', T0 + 10, said('the last one taken'), 'limits'));
    expect(last.status, last.text).toBe(201);
    const refused = await post(finished('run-full', T0 + 20, 'success', 'limits'));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'too_many_events', meta: { limit: 'eventsPerRun', max: 10_000 } });
    expect(JSON.stringify(refused.body)).toContain('body.scenarioRunId');
    expect(MAX_EVENTS_PER_RUN).toBe(10_000);
    const run = (await read('/api/simulations/runs/run-full')).body;
    expect(run).toMatchObject({ status: 'IN_PROGRESS', messageCount: 1, results: null });
    // Refusals are not counted: still refused, not a 500, however often it is sent.
    expect((await post(finished('run-full', T0 + 30, 'success', 'limits'))).status).toBe(400);
  });
});
