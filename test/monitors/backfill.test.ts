/**
 * One custom judge used three ways: as a monitor on traces as they arrive, run over traces
 * already stored (a backfill: preview with count and estimated cost, a background job with
 * progress, never evaluating a trace twice at one judge version), and in an experiment. The
 * judge's provider is the loopback OpenAI-compatible fake.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { startFakeServer, textReply, toolCallReply, type FakeServer, type RecordedRequest } from '../evaluators/fake-servers.ts';
import { createTenant, databaseKinds, ManualClock, startApp, type Tenant, type TestApp } from '../support/harness.ts';

const DAY = 86_400_000;

describe.each(databaseKinds)('a custom judge in a monitor, a backfill and an experiment (%s)', (kind) => {
  let t: TestApp;
  let fake: FakeServer;
  let key: string;
  let readonlyKey: string;
  let other: Tenant;
  let monitorId: string;
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
  const judgeCalls = () => fake.requests.filter((r) => (r.body as { tools?: unknown[] }).tools?.length);

  const req = (method: string, url: string, body?: unknown) => t.request(method, url, { authToken: key, body });
  /** The organization's read-only service key, on this project. */
  const readonlyReq = (method: string, url: string, body?: unknown) => t.request(method, url, { token: readonlyKey, projectId: t.creds.project.id, body });

  async function ingest(traceId: string, at: number, output: string) {
    const res = await req('POST', '/api/collector', {
      trace_id: traceId,
      spans: [{ span_id: `${traceId}-a`, type: 'llm', input: { type: 'text', value: `Question ${traceId}` }, output: { type: 'text', value: output }, timestamps: { started_at: at, finished_at: at + 100 } }],
    });
    expect(res.status, res.text).toBe(200);
  }

  /** Runs due jobs until the backfill ends. */
  async function finish(backfillId: string) {
    for (let i = 0; i < 50; i++) {
      await t.app.services.jobs.runDue();
      const b = await req('GET', `/api/monitors/${monitorId}/backfills/${backfillId}`);
      expect(b.status, b.text).toBe(200);
      if (b.body.state !== 'queued' && b.body.state !== 'running') return b.body;
    }
    throw new Error('backfill did not finish');
  }

  beforeAll(async () => {
    fake = await startFakeServer();
    fake.fallback = (r: RecordedRequest) => {
      const body = r.body as { tools?: { function: { name: string } }[]; messages: { role: string; content: string }[] };
      const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
      if (body.tools?.[0]?.function.name === 'verdict') return toolCallReply('verdict', { reasoning: 'checked the tone', passed: /please|thank/i.test(user) });
      return textReply(user.includes('parcel') ? 'Thank you, it arrives tomorrow.' : 'No.');
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
      slug: 'polite',
      name: 'Polite',
      prompt: 'Question: {{input}}\nAnswer: {{output}}\nIs the answer polite?',
      model: 'local/gpt-4o-mini',
      answer: { type: 'pass_fail' },
    });
    expect(judge.status, judge.text).toBe(201);
    const ro = await t.request('POST', '/api/api-keys', { token: t.creds.adminApiKey, body: { name: 'ro', keyType: 'service', permissionMode: 'readonly' } });
    readonlyKey = ro.body.token;

    // Three traces stored before the monitor exists; one older than the range asked for.
    const now = clock.now().getTime();
    await ingest('past-1', now - 2 * DAY, 'Thank you for asking!');
    await ingest('past-2', now - 3 * DAY, 'Go away.');
    await ingest('past-3', now - 4 * DAY, 'Please wait a moment.');
    await ingest('ancient', now - 30 * DAY, 'Thanks.');
    const monitor = await req('POST', '/api/monitors', { name: 'Politeness', evaluator: 'custom/polite' });
    expect(monitor.status, monitor.text).toBe(200);
    monitorId = monitor.body.id;
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('previews the count and an estimated cost of the run before starting it', async () => {
    const preview = await req('POST', `/api/monitors/${monitorId}/backfill/preview`, { startDate: clock.now().getTime() - 7 * DAY });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toMatchObject({ count: 3, capped: false, limit: 10_000 });
    const cost = preview.body.estimated_cost;
    expect(cost).toMatchObject({ currency: 'USD', model: 'local/gpt-4o-mini', answer_tokens_per_trace: 150 });
    expect(cost.prompt_tokens_per_trace).toBeGreaterThan(10);
    expect(cost.amount).toBeCloseTo(cost.per_trace * 3, 12);
    expect(cost.amount).toBeGreaterThan(0);
    expect(cost.method).toContain('tokenizer');
    // A cap below the match count says so.
    const capped = await req('POST', `/api/monitors/${monitorId}/backfill/preview`, { startDate: new Date(clock.now().getTime() - 60 * DAY).toISOString(), limit: 2 });
    expect(capped.body).toMatchObject({ count: 2, capped: true, limit: 2 });
    // Nothing ran.
    expect(judgeCalls()).toHaveLength(0);
  });

  it('a local evaluator costs nothing', async () => {
    const local = await req('POST', '/api/monitors', { name: 'Short answers', evaluator: 'checks/length', settings: { max: 500 }, enabled: false });
    expect(local.status, local.text).toBe(200);
    const preview = await req('POST', `/api/monitors/${local.body.id}/backfill/preview`, { startDate: 0 });
    expect(preview.body.estimated_cost).toMatchObject({ amount: 0, per_trace: 0 });
    await req('DELETE', `/api/monitors/${local.body.id}`);
  });

  it('refuses bad input with 400 naming the field, and read-only keys and other projects', async () => {
    const cases: [unknown, string][] = [
      [{}, 'body.startDate'],
      [{ startDate: 'last week' }, 'body.startDate'],
      [{ startDate: 1000, endDate: 10 }, 'body.endDate'],
      [{ startDate: 0, limit: 0 }, 'body.limit'],
      [{ startDate: 0, limit: 10_001 }, 'body.limit'],
      [{ startDate: 0, filters: { nope: ['x'] } }, 'body.filters'],
    ];
    for (const [body, field] of cases) {
      for (const path of ['backfill/preview', 'backfill']) {
        const res = await req('POST', `/api/monitors/${monitorId}/${path}`, body);
        expect(res.status, `${path} ${JSON.stringify(body)}: ${res.text}`).toBe(400);
        expect(res.body.error.meta.field, res.text).toContain(field);
      }
    }
    expect((await readonlyReq('POST', `/api/monitors/${monitorId}/backfill/preview`, { startDate: 0 })).status).toBe(200);
    const refused = await readonlyReq('POST', `/api/monitors/${monitorId}/backfill`, { startDate: 0 });
    expect(refused.status).toBe(403);
    const theirs = await t.request('POST', `/api/monitors/${monitorId}/backfill`, { token: other.adminToken, projectId: other.projectId, body: { startDate: 0 } });
    expect(theirs.status).toBe(404);
    expect((await req('GET', `/api/monitors/${monitorId}/backfills/nope`)).status).toBe(404);
    expect((await req('GET', '/api/monitors')).body.data).toHaveLength(1);
  });

  it('runs over the past traces as a background job with progress; results are the monitor\'s evaluations with their events', async () => {
    const started = await req('POST', `/api/monitors/${monitorId}/backfill`, { startDate: clock.now().getTime() - 7 * DAY });
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({ monitor_id: monitorId, state: 'queued', done: 0 });
    // One at a time per monitor.
    expect((await req('POST', `/api/monitors/${monitorId}/backfill`, { startDate: 0 })).status).toBe(409);
    const ended = await finish(started.body.id);
    expect(ended).toMatchObject({ state: 'completed', total: 3, done: 3, evaluated: 3, skipped: 0, failed: 0, error: null });
    expect(judgeCalls()).toHaveLength(3);

    const results = await req('GET', `/api/monitors/${monitorId}/results`);
    const byTrace = Object.fromEntries(results.body.data.map((r: { trace_id: string }) => [r.trace_id, r]));
    expect(Object.keys(byTrace).sort()).toEqual(['past-1', 'past-2', 'past-3']);
    expect(byTrace['past-1']).toMatchObject({ status: 'processed', passed: true, evaluator_version: 1 });
    expect(byTrace['past-2']).toMatchObject({ status: 'processed', passed: false, evaluator_version: 1 });
    const trace = await req('GET', '/api/trace/past-2');
    expect(trace.body.evaluations).toEqual([expect.objectContaining({ type: 'custom/polite', name: 'Politeness', passed: false })]);
    const events = await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM events WHERE type = 'evaluation.completed' AND data->>'type' = 'custom/polite' AND project_id = ${t.creds.project.id}`);
    expect(events[0].n).toBe(3);
    const list = await req('GET', `/api/monitors/${monitorId}/backfills`);
    expect(list.body.data.map((b: { id: string }) => b.id)).toEqual([started.body.id]);
  });

  it('live traces are evaluated as they arrive; running again skips every trace already evaluated at this version', async () => {
    await ingest('live-1', clock.now().getTime(), 'Thank you!');
    clock.advance(31_000);
    await t.app.services.jobs.runDue();
    expect(judgeCalls()).toHaveLength(4);

    const again = await req('POST', `/api/monitors/${monitorId}/backfill`, { startDate: clock.now().getTime() - 7 * DAY });
    expect(again.status, again.text).toBe(202);
    expect(await finish(again.body.id)).toMatchObject({ state: 'completed', total: 4, done: 4, evaluated: 0, skipped: 4 });
    expect(judgeCalls()).toHaveLength(4);
    expect((await req('GET', `/api/monitors/${monitorId}/results`)).body.data).toHaveLength(4);
  });

  it('a new version of the judge is a new run: each trace once more, recording version 2; a cancelled run stops', async () => {
    const v2 = await req('PATCH', '/api/custom-evaluators/polite', { prompt: 'Question: {{input}}\nAnswer: {{output}}\nIs the answer polite? Be strict.' });
    expect(v2.body.version).toBe(2);
    const cancelled = await req('POST', `/api/monitors/${monitorId}/backfill`, { startDate: 0 });
    const stop = await req('POST', `/api/monitors/${monitorId}/backfills/${cancelled.body.id}/cancel`);
    expect(stop.status, stop.text).toBe(200);
    expect(stop.body.state).toBe('cancelled');
    await t.app.services.jobs.runDue();
    expect(judgeCalls()).toHaveLength(4);
    expect((await readonlyReq('POST', `/api/monitors/${monitorId}/backfills/${cancelled.body.id}/cancel`)).status).toBe(403);

    const run = await req('POST', `/api/monitors/${monitorId}/backfill`, { startDate: 0 });
    expect(await finish(run.body.id)).toMatchObject({ state: 'completed', total: 5, evaluated: 5, skipped: 0 });
    const results = await req('GET', `/api/monitors/${monitorId}/results`);
    const v2Results = results.body.data.filter((r: { evaluator_version: number }) => r.evaluator_version === 2);
    expect(v2Results.map((r: { trace_id: string }) => r.trace_id).sort()).toEqual(['ancient', 'live-1', 'past-1', 'past-2', 'past-3']);
  });

  it('a trace arriving during a backfill is left to its live evaluation: evaluated once, not twice', async () => {
    await ingest('live-2', clock.now().getTime(), 'Thanks, please hold.');
    const calls = judgeCalls().length;
    // Its live job waits for the spans to settle (30 s); a backfill over it meanwhile leaves it alone.
    const during = await req('POST', `/api/monitors/${monitorId}/backfill`, { startDate: clock.now().getTime() - 1_000 });
    expect(during.status, during.text).toBe(202);
    expect(await finish(during.body.id)).toMatchObject({ state: 'completed', total: 1, evaluated: 0, skipped: 1 });
    expect(judgeCalls()).toHaveLength(calls);
    clock.advance(31_000);
    await t.app.services.jobs.runDue();
    expect(judgeCalls()).toHaveLength(calls + 1);
    const after = await req('POST', `/api/monitors/${monitorId}/backfill`, { startDate: clock.now().getTime() - 32_000 });
    expect(await finish(after.body.id)).toMatchObject({ state: 'completed', total: 1, evaluated: 0, skipped: 1 });
    expect(judgeCalls()).toHaveLength(calls + 1);
    const results = (await req('GET', `/api/monitors/${monitorId}/results`)).body.data as { trace_id: string }[];
    expect(results.filter((r) => r.trace_id === 'live-2')).toHaveLength(1);
  });

  it('the same judge scores an experiment, which records the version it ran', async () => {
    const ds = await req('POST', '/api/dataset', { name: 'Questions', columnTypes: [{ name: 'input', type: 'string' }] });
    expect(ds.status, ds.text).toBe(201);
    await req('POST', '/api/dataset/questions/records', { entries: [{ input: 'Where is my parcel?' }, { input: 'Can you help?' }] });
    const prompt = await req('POST', '/api/prompts', {
      handle: 'helper',
      model: 'local/gpt-4o-mini',
      prompt: 'Answer briefly.',
      messages: [{ role: 'user', content: '{{input}}' }],
      inputs: [{ identifier: 'input', type: 'str' }],
    });
    expect(prompt.status, prompt.text).toBe(200);
    const put = await req('PUT', '/api/experiments/politeness-check/definition', {
      dataset: { id: 'questions' },
      targets: [{ id: 'helper', type: 'prompt', prompt: 'helper' }],
      evaluators: [{ id: 'polite', evaluator: 'custom/polite', mapping: { input: 'dataset.input', output: 'target.output' } }],
    });
    expect(put.status, put.text).toBe(200);
    const started = await req('POST', '/api/experiments/politeness-check/run', {});
    expect(started.status, started.text).toBe(200);
    let status: { status: string } = { status: 'running' };
    for (let i = 0; i < 400 && status.status === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 150));
      status = (await req('GET', `/api/experiments/runs/${started.body.runId}?experimentSlug=politeness-check`)).body;
    }
    expect(status.status).toBe('completed');
    const runRows = await req('GET', `/api/experiments/politeness-check/runs/${started.body.runId}/rows`);
    expect(runRows.body.evaluators).toEqual([{ evaluator: 'polite', name: 'Polite', version: 2 }]);
    const verdicts = runRows.body.rows.map((r: { evaluations: { polite: { passed: boolean } } }) => r.evaluations.polite.passed);
    expect(verdicts.sort()).toEqual([false, true]);
  });
});
