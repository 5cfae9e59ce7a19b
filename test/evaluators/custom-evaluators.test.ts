import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTenant, appDatabaseKinds, ManualClock, startApp, type TestApp, type Tenant, JOBS_RUN_BY_HAND } from '../support/harness.ts';
import { errorReply, startFakeServer, textReply, toolCallReply, type FakeServer } from './fake-servers.ts';

const JUDGE = {
  slug: 'politeness',
  name: 'Politeness',
  description: 'Is the answer polite?',
  prompt: 'Question: {{input}}\nAnswer: {{output}}\nIs the answer polite?',
  model: 'local/gpt-4o-mini',
  answer: { type: 'pass_fail' },
};

describe.each(appDatabaseKinds)('custom evaluators (%s)', (kind) => {
  let t: TestApp;
  let fake: FakeServer;
  let key: string;
  let other: Tenant;
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
  beforeAll(async () => {
    fake = await startFakeServer();
    t = await startApp(kind, { clock, fresh: true, env: JOBS_RUN_BY_HAND });
    key = t.creds.projectApiKey;
    other = await createTenant(t);
    const provider = await t.request('POST', '/api/model-providers', {
      token: t.creds.adminApiKey,
      projectId: t.creds.project.id,
      body: { name: 'local', kind: 'openai_compatible', api_key: 'fake-key-1234', base_url: `${fake.url}/v1`, models: ['gpt-4o-mini'] },
    });
    expect(provider.status, provider.text).toBe(201);
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    t.app.services.evaluations.limits.timeoutMs = 120_000;
  });

  const evaluate = (slug: string, body: unknown) => t.request('POST', `/api/evaluations/custom/${slug}/evaluate`, { authToken: key, body });

  it('creates a judge (version 1) that lists its variables and appears in the catalogue with its data keys', async () => {
    const res = await t.request('POST', '/api/custom-evaluators', { authToken: key, body: JUDGE });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ slug: 'politeness', path: 'custom/politeness', version: 1, latest_version: 1, variables: ['input', 'output'], temperature: 0 });
    const catalogue = await t.request('GET', '/api/evaluations', { authToken: key });
    const entry = catalogue.body.evaluators.find((e: { path: string }) => e.path === 'custom/politeness');
    expect(entry).toMatchObject({ name: 'Politeness', category: 'custom', available: true, version: 1, data: { required: ['input', 'output'] } });
    expect(entry.settings.properties.version.type).toBe('integer');
    expect(catalogue.body.evaluators.some((e: { path: string }) => e.path === 'llm/llm_score')).toBe(true);
    // Another project's catalogue does not have it.
    const theirs = await t.request('GET', '/api/evaluations', { token: other.adminToken, projectId: other.projectId });
    expect(theirs.body.evaluators.some((e: { path: string }) => e.path === 'custom/politeness')).toBe(false);
  });

  it('refuses bad definitions with 400 naming the field, and a taken slug with 409', async () => {
    const cases: [unknown, string][] = [
      [{ ...JUDGE, slug: 'Bad Slug' }, 'body.slug'],
      [{ ...JUDGE, slug: 'x1', model: 'nowhere/m' }, 'body.model'],
      [{ ...JUDGE, slug: 'x2', prompt: 'no variables here' }, 'body.prompt'],
      [{ ...JUDGE, slug: 'x3', answer: { type: 'score', min: 5, max: 1 } }, 'body.answer.max'],
      [{ ...JUDGE, slug: 'x4', answer: { type: 'category', categories: [{ name: 'a' }, { name: 'b' }], passing: ['c'] } }, 'body.answer.passing'],
      [{ ...JUDGE, slug: 'x5', answer: { type: 'vibes' } }, 'body.answer.type'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('POST', '/api/custom-evaluators', { authToken: key, body });
      expect(res.status, `${field}: ${res.text}`).toBe(400);
      expect(res.body.error.meta.field, res.text).toBe(field);
    }
    const dup = await t.request('POST', '/api/custom-evaluators', { authToken: key, body: JUDGE });
    expect(dup.status).toBe(409);
  });

  it('runs at POST /api/evaluations/custom/{slug}/evaluate through a forced tool call, with the seed evaluators\' result shape', async () => {
    fake.queue(toolCallReply('verdict', { reasoning: 'Courteous and kind.', passed: true }));
    const res = await evaluate('politeness', { data: { input: 'Where is my parcel?', output: 'It arrives tomorrow, thank you for waiting!' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ status: 'processed', passed: true, score: 1, label: 'pass', details: 'Courteous and kind.', cost: { currency: 'USD' } });
    expect(res.body[0].raw_response).toMatchObject({ model: 'local/gpt-4o-mini', evaluator: 'custom/politeness', version: 1 });
    const req = fake.requests[0];
    expect(req.body.tool_choice).toEqual({ type: 'function', function: { name: 'verdict' } });
    expect(req.body.messages.find((m: { role: string }) => m.role === 'user').content).toBe('Question: Where is my parcel?\nAnswer: It arrives tomorrow, thank you for waiting!\nIs the answer polite?');
  });

  it('a template naming a variable the data lacks: 400 before anything runs', async () => {
    const res = await evaluate('politeness', { data: { input: 'hi' } });
    expect(res.status).toBe(400);
    expect(res.body.error.meta.field).toBe('data.output');
    expect(res.body.error.message).toContain('{{output}}');
    expect(fake.requests).toHaveLength(0);
    expect((await evaluate('nothing-here', { data: {} })).status).toBe(404);
  });

  it('provider failure, timeout, and an answer not fitting the kind: status error saying which', async () => {
    fake.queue(errorReply(500), errorReply(500), errorReply(500));
    const failed = await evaluate('politeness', { data: { input: 'a', output: 'b' } });
    expect(failed.body[0]).toMatchObject({ status: 'error', error_type: 'ProviderError' });
    expect(failed.body[0].details).toMatch(/answered HTTP 500/);

    fake.queue(toolCallReply('verdict', { reasoning: 'r', passed: 'maybe' }));
    const unfit = await evaluate('politeness', { data: { input: 'a', output: 'b' } });
    expect(unfit.body[0]).toMatchObject({ status: 'error', error_type: 'InvalidAnswer' });
    expect(unfit.body[0].details).toMatch(/does not fit the evaluator's kind \(pass or fail\)/);

    fake.queue(textReply('I think it is polite.'));
    const text = await evaluate('politeness', { data: { input: 'a', output: 'b' } });
    expect(text.body[0]).toMatchObject({ status: 'error', error_type: 'InvalidAnswer' });

    t.app.services.evaluations.limits.timeoutMs = 300;
    fake.queue({ kind: 'hang' });
    const slow = await evaluate('politeness', { data: { input: 'a', output: 'b' } });
    expect(slow.body[0]).toMatchObject({ status: 'error', error_type: 'Timeout' });
    expect(slow.body[0].details).toMatch(/did not finish within/);
  });

  it('keeps versions: a changed prompt or answer is a new version; an old one can be pinned', async () => {
    const v2 = await t.request('PATCH', '/api/custom-evaluators/politeness', {
      authToken: key,
      body: { answer: { type: 'score', min: 0, max: 10, threshold: 7 }, prompt: 'Rate the politeness of: {{output}}', commit_message: 'a score' },
    });
    expect(v2.status, v2.text).toBe(200);
    expect(v2.body).toMatchObject({ version: 2, latest_version: 2, variables: ['output'], commit_message: 'a score' });
    const renamed = await t.request('PATCH', '/api/custom-evaluators/politeness', { authToken: key, body: { name: 'Politeness (0-10)' } });
    expect(renamed.body).toMatchObject({ version: 2, name: 'Politeness (0-10)' });
    const versions = await t.request('GET', '/api/custom-evaluators/politeness/versions', { authToken: key });
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect((await t.request('GET', '/api/custom-evaluators/politeness?version=1', { authToken: key })).body.answer).toEqual({ type: 'pass_fail' });

    fake.queue(toolCallReply('verdict', { reasoning: 'ok', score: 8 }));
    const scored = await evaluate('politeness', { data: { output: 'Thanks!' } });
    expect(scored.body[0]).toMatchObject({ status: 'processed', score: 8, passed: true });
    expect(fake.requests[0].body.tools[0].function.parameters.properties.score).toMatchObject({ minimum: 0, maximum: 10 });

    fake.queue(toolCallReply('verdict', { reasoning: 'way off', score: 42 }));
    const outOfRange = await evaluate('politeness', { data: { output: 'Thanks!' } });
    expect(outOfRange.body[0]).toMatchObject({ status: 'error', error_type: 'InvalidAnswer' });
    expect(outOfRange.body[0].details).toContain('a score from 0 to 10');

    fake.queue(toolCallReply('verdict', { reasoning: 'fine', passed: false }));
    const pinned = await evaluate('politeness', { data: { input: 'q', output: 'a' }, settings: { version: 1 } });
    expect(pinned.body[0]).toMatchObject({ status: 'processed', passed: false, label: 'fail' });
    const missing = await evaluate('politeness', { data: { output: 'a' }, settings: { version: 9 } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.meta.field).toBe('settings.version');
  });

  it('a category judge', async () => {
    const res = await t.request('POST', '/api/custom-evaluators', {
      authToken: key,
      body: { slug: 'topic', name: 'Topic', prompt: '{{output}} / expected {{expected_output}} / {{region}}', model: 'local/gpt-4o-mini', answer: { type: 'category', categories: [{ name: 'billing' }, { name: 'shipping', description: 'parcels' }], passing: ['shipping'] } },
    });
    expect(res.status, res.text).toBe(201);
    fake.queue(toolCallReply('verdict', { reasoning: 'about parcels', label: 'shipping' }));
    const out = await evaluate('topic', { data: { output: 'Your parcel', expected_output: 'x', region: 'EU' } });
    expect(out.body[0]).toMatchObject({ status: 'processed', label: 'shipping', passed: true });
    expect(fake.requests[0].body.tools[0].function.parameters.properties.label.enum).toEqual(['billing', 'shipping']);
    // A monitor cannot use it: traces give no expected_output or region.
    const monitor = await t.request('POST', '/api/monitors', { authToken: key, body: { name: 'm', evaluator: 'custom/topic' } });
    expect(monitor.status).toBe(400);
    expect(monitor.body.error.message).toContain('{{expected_output}}');
  });

  it('a custom judge in a monitor: runs on matching traces, each result records the version used', async () => {
    const monitor = await t.request('POST', '/api/monitors', { authToken: key, body: { name: 'Polite replies', evaluator: 'custom/politeness' } });
    expect(monitor.status, monitor.text).toBe(200);
    expect((await t.request('POST', '/api/monitors', { authToken: key, body: { name: 'x', evaluator: 'custom/absent' } })).body.error.meta.field).toBe('evaluator');
    const now = clock.now().getTime();
    const ingest = await t.request('POST', '/api/collector', {
      authToken: key,
      body: { trace_id: 'ce-1', spans: [{ span_id: 'ce-1-a', type: 'llm', input: { type: 'text', value: 'Hi' }, output: { type: 'text', value: 'Go away.' }, timestamps: { started_at: now - 1000, finished_at: now - 900 } }] },
    });
    expect(ingest.status).toBe(200);
    fake.queue(toolCallReply('verdict', { reasoning: 'rude', score: 1 }));
    clock.advance(31_000);
    expect(await t.app.services.jobs.runDue()).toBe(1);
    expect(fake.requests[0].body.messages.find((m: { role: string }) => m.role === 'user').content).toBe('Rate the politeness of: Go away.');
    const results = await t.request('GET', `/api/monitors/${monitor.body.id}/results`, { authToken: key });
    expect(results.body.data).toEqual([expect.objectContaining({ trace_id: 'ce-1', status: 'processed', score: 1, passed: false, evaluator_version: 2 })]);
    const trace = await t.request('GET', '/api/trace/ce-1', { authToken: key });
    expect(trace.body.evaluations).toEqual([expect.objectContaining({ type: 'custom/politeness', name: 'Polite replies', score: 1 })]);
  });

  it('is invisible to another project, and only members with evaluators:manage change it', async () => {
    expect((await t.request('GET', '/api/custom-evaluators/politeness', { token: other.adminToken, projectId: other.projectId })).status).toBe(404);
    expect((await t.request('PATCH', '/api/custom-evaluators/politeness', { token: other.adminToken, projectId: other.projectId, body: { name: 'x' } })).status).toBe(404);
    expect((await t.request('DELETE', '/api/custom-evaluators/politeness', { token: other.adminToken, projectId: other.projectId })).status).toBe(404);
    expect((await t.request('POST', '/api/evaluations/custom/politeness/evaluate', { token: other.adminToken, projectId: other.projectId, body: { data: { output: 'x' } } })).status).toBe(404);
    const list = await t.request('GET', '/api/custom-evaluators', { token: other.adminToken, projectId: other.projectId });
    expect(list.body.data).toEqual([]);
    const readonly = await t.request('POST', '/api/api-keys', { token: t.creds.adminApiKey, body: { name: 'ro', keyType: 'service', permissionMode: 'readonly' } });
    const ro = readonly.body.token as string;
    expect((await t.request('GET', '/api/custom-evaluators', { token: ro, projectId: t.creds.project.id })).status).toBe(200);
    expect((await t.request('POST', '/api/custom-evaluators', { token: ro, projectId: t.creds.project.id, body: { ...JUDGE, slug: 'ro' } })).status).toBe(403);
  });

  it('deletes it with its versions', async () => {
    const res = await t.request('DELETE', '/api/custom-evaluators/topic', { authToken: key });
    expect(res.body).toEqual({ slug: 'topic', deleted: true });
    expect((await t.request('GET', '/api/custom-evaluators/topic/versions', { authToken: key })).status).toBe(404);
  });
});
