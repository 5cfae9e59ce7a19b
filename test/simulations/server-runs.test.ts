/**
 * Simulations the server runs: scenarios defined over the API, a set run as a batch against a
 * loopback HTTP agent, with the loopback OpenAI-compatible server playing the user and the judge.
 * The runs pass and fail as the criteria say, an agent that times out or answers garbage ends its
 * run as an error with the reason while the batch goes on, and every run reads back exactly as a
 * reported one does. Bad input: 400 naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, databaseKinds, startApp, type Tenant, type TestApp } from '../support/harness.ts';
import { startFakeServer, type FakeServer } from '../evaluators/fake-servers.ts';
import { scriptedModel, startAgent, type LoopbackAgent } from './loopback-agent.ts';

describe.each(databaseKinds)('simulations the server runs (%s)', (kind) => {
  let t: TestApp;
  let openai: FakeServer;
  let agent: LoopbackAgent;
  let other: Tenant;

  beforeAll(async () => {
    openai = await startFakeServer();
    openai.fallback = scriptedModel;
    agent = await startAgent();
    t = await startApp(kind, { env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${openai.url}/v1` } });
    other = await createTenant(t);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await openai?.close();
    await agent?.close();
  });

  const call = (method: string, url: string, body?: unknown, key = t.creds.projectApiKey) => t.request(method, url, { authToken: key, body });
  const scenario = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
    name,
    scenarioSetId: 'support',
    description: 'A customer asks for a refund',
    persona: 'A polite customer whose parcel arrived broken',
    goal: 'Get a refund for order 42',
    criteria: ['The agent approves the refund', 'The agent stays polite'],
    maxTurns: 3,
    target: { type: 'http', url: `${agent.url}${path}`, timeout_ms: path === '/slow' ? 300 : 20_000, headers: { authorization: 'Bearer agent-secret-0123456789' } },
    ...extra,
  });

  async function finishedBatch(batchRunId: string) {
    const until = Date.now() + 60_000;
    for (;;) {
      const res = await call('GET', `/api/simulations/batches/${batchRunId}/runs`);
      expect(res.status, res.text).toBe(200);
      if (res.body.runs.every((r: { finishedAt: number | null }) => r.finishedAt !== null)) return res.body.runs as any[];
      if (Date.now() > until) throw new Error(`batch ${batchRunId} did not finish: ${res.text}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('defines scenarios (headers masked), runs the set: passes and fails as the criteria say; timeouts and garbage end their run as an error, the batch goes on', async () => {
    const made = await call('POST', '/api/simulations/scenarios', scenario('Good agent', '/good'));
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ name: 'Good agent', scenarioSetId: 'support', maxTurns: 3, target: { type: 'http', headers: { authorization: '****6789' } } });
    for (const [name, path] of [['Stubborn agent', '/stubborn'], ['Slow agent', '/slow'], ['Garbage agent', '/garbage']]) {
      expect((await call('POST', '/api/simulations/scenarios', scenario(name, path))).status).toBe(201);
    }
    const listed = await call('GET', '/api/simulations/scenarios?scenarioSetId=support');
    expect(listed.body.scenarios.map((s: { name: string }) => s.name)).toEqual(['Garbage agent', 'Good agent', 'Slow agent', 'Stubborn agent']);
    expect(JSON.stringify(listed.body)).not.toContain('agent-secret');

    const started = await call('POST', '/api/simulations/sets/support/run', { label: 'v1' });
    expect(started.status, started.text).toBe(201);
    expect(started.body.runs).toHaveLength(4);
    expect(started.body.batchUrl).toContain(`batch=${started.body.batchRunId}`);
    const runs = await finishedBatch(started.body.batchRunId);
    const byName = Object.fromEntries(runs.map((r) => [r.name, r]));
    expect(byName['Good agent']).toMatchObject({
      status: 'SUCCESS',
      results: { verdict: 'success', metCriteria: ['The agent approves the refund', 'The agent stays polite'], unmetCriteria: [], error: null },
      // The judge ended it after the agent's first answer.
      messageCount: 2,
    });
    expect(byName['Stubborn agent']).toMatchObject({ status: 'FAILED', results: { verdict: 'failure', unmetCriteria: ['The agent approves the refund'] }, messageCount: 6 });
    expect(byName['Slow agent']).toMatchObject({ status: 'ERROR', results: { verdict: 'failure', error: expect.stringMatching(/^timeout: the agent did not answer within 300 ms/) } });
    expect(byName['Garbage agent']).toMatchObject({ status: 'ERROR', results: { error: expect.stringMatching(/^invalid_json: /) } });

    // The conversation, read back as a reported run's is; the agent got the conversation and its headers.
    const good = await call('GET', `/api/simulations/runs/${byName['Good agent'].scenarioRunId}`);
    expect(good.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect(good.body.messages[0].content).toBe('Hi, I want a refund for order 42.');
    expect(good.body.results.reasoning).toContain('✓ The agent approves the refund: the agent approved it');
    expect(good.body.metadata).toMatchObject({ source: 'server', label: 'v1' });
    const first = agent.calls.find((c) => c.path === '/good')!;
    expect(first.headers.authorization).toBe('Bearer agent-secret-0123456789');
    expect(first.body.messages).toEqual([{ role: 'user', content: 'Hi, I want a refund for order 42.' }]);

    // The set and batch pages' routes count them as they count reported runs.
    const batches = await call('GET', '/api/simulations/sets/support/batches');
    expect(batches.body.batches[0]).toMatchObject({ batchRunId: started.body.batchRunId, label: 'v1', runs: 4, passed: 1, failed: 3, inProgress: 0, passRate: 0.25 });

    // The stubborn agent ran its three turns: the judge was asked after each answer.
    const stubborn = await call('GET', `/api/simulations/runs/${byName['Stubborn agent'].scenarioRunId}`);
    expect(stubborn.body.messages.filter((m: { role: string }) => m.role === 'user')).toHaveLength(3);
  }, 120_000);

  it('runs a scenario whose agent is a prompt: the prompt answers each turn through the project\'s model, and the run links to its traces', async () => {
    const prompt = await call('POST', '/api/prompts', {
      handle: 'refund-desk',
      prompt: 'You are the REFUND DESK of a shop. Approve fair refunds.',
      messages: [{ role: 'user', content: '{{conversation}}' }],
      inputs: [{ identifier: 'conversation', type: 'str' }],
    });
    expect(prompt.status, prompt.text).toBe(200);
    const made = await call('POST', '/api/simulations/scenarios', scenario('Prompt agent', '/unused', { scenarioSetId: 'desk', target: { type: 'prompt', prompt: 'refund-desk' } }));
    expect(made.status, made.text).toBe(201);
    expect(made.body.target).toMatchObject({ type: 'prompt', prompt: 'refund-desk' });
    const started = await call('POST', '/api/simulations/sets/desk/run', { label: 'prompt v1' });
    expect(started.status, started.text).toBe(201);
    const [run] = await finishedBatch(started.body.batchRunId);
    expect(run).toMatchObject({ name: 'Prompt agent', status: 'SUCCESS', results: { verdict: 'success', unmetCriteria: [] }, messageCount: 2 });
    const read = await call('GET', `/api/simulations/runs/${run.scenarioRunId}`);
    expect(read.body.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'Hi, I want a refund for order 42.'],
      ['assistant', 'REFUND APPROVED: your refund for order 42 is on its way.'],
    ]);
    // The prompt saw the conversation so far; its run is a trace of the project, linked from the run.
    const asked = openai.requests.find((r) => (r.body.messages as { role: string; content: string }[]).some((m) => m.content.includes('REFUND DESK')))!;
    expect(JSON.stringify(asked.body.messages)).toContain('user: Hi, I want a refund for order 42.');
    expect(read.body.traceIds).toHaveLength(1);
    const trace = await call('GET', `/api/traces/${read.body.traceIds[0]}`);
    expect(trace.status, trace.text).toBe(200);
  });

  it('bad scenarios and runs: 400 naming the field; 404 for a set without scenarios; another project sees none of it', async () => {
    const cases: Array<[unknown, string]> = [
      [scenario('x', '/good', { maxTurns: 51 }), 'body.maxTurns'],
      [scenario('x', '/good', { maxTurns: 0 }), 'body.maxTurns'],
      [scenario('x', '/good', { criteria: [] }), 'body.criteria'],
      [scenario('x', '/good', { criteria: Array.from({ length: 31 }, (_, i) => `c${i}`) }), 'body.criteria'],
      [scenario('x', '/good', { persona: '' }), 'body.persona'],
      [scenario('x', '/good', { target: { type: 'http', url: 'ftp://example.com/agent' } }), 'body.target.url'],
      [scenario('x', '/good', { target: { type: 'http', url: 'http://127.0.0.1:1/a', timeout_ms: 10 } }), 'body.target.timeout_ms'],
      [scenario('x', '/good', { target: { type: 'prompt', prompt: 'no-such-prompt' } }), 'body.target.prompt'],
      [scenario('x', '/good', { target: { type: 'prompt', prompt: 'p', model: 'nope' } }), 'body.target.model'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', '/api/simulations/scenarios', body);
      expect(res.status, `${field}: ${res.text}`).toBe(400);
      expect(JSON.stringify(res.body), field).toContain(field);
    }
    const dup = await call('POST', '/api/simulations/scenarios', scenario('Good agent', '/good'));
    expect(dup.status).toBe(409);
    expect(dup.text).toContain('body.name');

    for (const [body, field] of [
      [{ repeat: 21 }, 'body.repeat'],
      [{ repeat: 0 }, 'body.repeat'],
      [{ userModel: 'nope/model-x' }, 'body.userModel'],
      [{ judgeModel: 'gpt' }, 'body.judgeModel'],
    ] as const) {
      const res = await call('POST', '/api/simulations/sets/support/run', body);
      expect(res.status, `${field}: ${res.text}`).toBe(400);
      expect(res.text).toContain(field);
    }
    expect((await call('POST', '/api/simulations/sets/nothing-here/run', {})).status).toBe(404);

    const mine = (await call('GET', '/api/simulations/scenarios')).body.scenarios[0];
    expect((await call('GET', `/api/simulations/scenarios/${mine.id}`, undefined, other.projectToken)).status).toBe(404);
    expect((await call('DELETE', `/api/simulations/scenarios/${mine.id}`, undefined, other.projectToken)).status).toBe(404);
    expect((await call('GET', '/api/simulations/scenarios', undefined, other.projectToken)).body.scenarios).toEqual([]);
    expect((await call('POST', '/api/simulations/sets/support/run', {}, other.projectToken)).status).toBe(404);
  });

  it('a PUT keeps headers it was given masked; DELETE removes the scenario', async () => {
    const made = (await call('POST', '/api/simulations/scenarios', scenario('Edited', '/good', { scenarioSetId: 'edits' }))).body;
    const put = await call('PUT', `/api/simulations/scenarios/${made.id}`, { ...scenario('Edited again', '/good', { scenarioSetId: 'edits' }), target: { ...made.target } });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ name: 'Edited again', target: { headers: { authorization: '****6789' } } });
    const started = await call('POST', '/api/simulations/sets/edits/run', {});
    const [run] = await finishedBatch(started.body.batchRunId);
    expect(run).toMatchObject({ name: 'Edited again', status: 'SUCCESS' });
    expect(agent.calls.at(-1)!.headers.authorization).toBe('Bearer agent-secret-0123456789');
    expect((await call('DELETE', `/api/simulations/scenarios/${made.id}`)).body).toEqual({ deleted: true });
    expect((await call('GET', `/api/simulations/scenarios/${made.id}`)).status).toBe(404);
  }, 60_000);

  it('compares two batches of a set (two agent versions): pass rate per scenario and overall, the paired verdict in words', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await call('POST', '/api/simulations/scenarios', { ...scenario(`case ${i}`, '/versioned', { scenarioSetId: 'versions', maxTurns: 1 }), criteria: ['The agent approves the refund'] });
      expect(res.status, res.text).toBe(201);
    }
    agent.version = 1;
    const v1 = (await call('POST', '/api/simulations/sets/versions/run', { label: 'v1' })).body.batchRunId;
    await finishedBatch(v1);
    agent.version = 2;
    const v2 = (await call('POST', '/api/simulations/sets/versions/run', { label: 'v2', repeat: 2 })).body.batchRunId;
    await finishedBatch(v2);

    const res = await call('GET', `/api/simulations/sets/versions/compare?baseline=${v1}&candidate=${v2}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ baseline: { batchRunId: v1, label: 'v1' }, candidate: { batchRunId: v2, label: 'v2' } });
    expect(res.body.overall).toMatchObject({
      baseline: { runs: 20, passed: 0, passRate: 0 },
      candidate: { runs: 40, passed: 30, passRate: 0.75 },
      pairedScenarios: 20,
      difference: 0.75,
      verdict: 'better',
    });
    expect(res.body.overall.interval.low).toBeGreaterThan(0.5);
    expect(res.body.overall.summary).toMatch(/^The candidate passes 75% \(30 of 40 runs\), the baseline 0% \(0 of 20\)\. Better: \+75 points \(95% interval \+[\d.]+ points to \+[\d.]+ points\) over 20 paired scenarios\.$/);
    const case3 = res.body.scenarios.find((s: { name: string }) => s.name === 'case 3');
    expect(case3).toMatchObject({ baseline: { runs: 1, passed: 0, passRate: 0 }, candidate: { runs: 2, passed: 2, passRate: 1 }, difference: 1 });
    expect(case3.candidate.interval.low).toBeGreaterThan(0.3);

    // A batch of another set: 400 naming it.
    const wrong = await call('GET', `/api/simulations/sets/support/compare?baseline=${v1}&candidate=${v2}`);
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('querystring.baseline');
    expect((await call('GET', `/api/simulations/sets/versions/compare?baseline=${v1}&candidate=${v1}`)).text).toContain('querystring.candidate');
    expect((await call('GET', `/api/simulations/sets/versions/compare?baseline=${v1}&candidate=${v2}`, undefined, other.projectToken)).status).toBe(400);
  }, 240_000);
});
