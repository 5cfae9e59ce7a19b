/**
 * Experiments run by the platform (EVALUATIONS_V3): the definition route, starting a run
 * (JSON and event stream), its results in the results tables, traces of every target call,
 * faults of targets and evaluators, stop, and project isolation. Fakes at the edge only: a
 * loopback OpenAI-compatible provider and a loopback agent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer, type RecordedRequest, type Reply } from '../evaluators/fake-servers.ts';
import { sql } from 'drizzle-orm';
import { rows } from '../../src/db/index.ts';
import { createTenant, databaseKinds, startApp, type TestApp, type Tenant } from '../support/harness.ts';

function completion(text: string): Reply {
  return {
    kind: 'json',
    body: {
      id: 'chatcmpl-x',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-4o-mini-2024-07-18',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  };
}

/** The user's agent: echoes the question upper-cased; some questions fault on purpose. */
async function startAgent(): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      calls++;
      const row = JSON.parse(text) as { question: string };
      if (req.headers['x-agent-key'] !== 'secret') return void res.writeHead(401).end('{"error":"no key"}');
      if (row.question === 'slow') return void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"answer":"late"}'), 3_000);
      if (row.question === 'fail') return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
      if (row.question === 'text') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('not json');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: row.question.toUpperCase(), meta: { row } }));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`,
    calls: () => calls,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

describe.each(databaseKinds)('experiments run by the platform (%s)', (kind) => {
  let t: TestApp;
  let openai: FakeServer;
  let agent: Awaited<ReturnType<typeof startAgent>>;
  let other: Tenant;
  let key: string;

  beforeAll(async () => {
    openai = await startFakeServer();
    openai.fallback = (req: RecordedRequest) => {
      const messages = (req.body as { messages: { role: string; content: string }[] }).messages;
      const last = messages[messages.length - 1].content;
      return completion(last.includes('rockets') ? 'Ask Acme about it' : `The answer to: ${last}`);
    };
    agent = await startAgent();
    t = await startApp(kind, { env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${openai.url}/v1` } });
    key = t.creds.projectApiKey;
    other = await createTenant(t);

    const ds = await t.request('POST', '/api/dataset', {
      authToken: key,
      body: { name: 'Questions', columnTypes: [{ name: 'question', type: 'string' }, { name: 'expected', type: 'string' }] },
    });
    expect(ds.status, ds.text).toBe(201);
    const added = await t.request('POST', '/api/dataset/questions/records', {
      authToken: key,
      body: { entries: [{ question: 'What is 2+2?', expected: '4' }, { question: 'Who makes rockets?', expected: 'Acme' }, { question: 'Capital of France?', expected: 'Paris' }] },
    });
    expect(added.status, added.text).toBe(201);
    const prompt = await t.request('POST', '/api/prompts', {
      authToken: key,
      body: { handle: 'qa', prompt: 'Answer briefly.', messages: [{ role: 'user', content: '{{question}}' }], inputs: [{ identifier: 'question', type: 'str' }] },
    });
    expect(prompt.status, prompt.text).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await openai?.close();
    await agent?.close();
  });

  const req = (method: string, url: string, body?: unknown, token = key) => t.request(method, url, { authToken: token, ...(body === undefined ? {} : { body }) });
  const blocklist = { id: 'no-competitors', evaluator: 'langevals/competitor_blocklist', settings: { competitors: ['Acme'] }, mapping: { output: 'target.output', input: 'dataset.question' } };
  const definition = {
    name: 'QA check',
    dataset: { id: 'questions' },
    targets: [
      { id: 'qa-prompt', type: 'prompt', prompt: 'qa' },
      { id: 'my-agent', type: 'http', url: '', headers: { 'x-agent-key': 'secret' }, output_field: 'answer' },
    ],
    evaluators: [blocklist],
    concurrency: 4,
  };
  const withAgent = () => ({ ...definition, targets: [definition.targets[0], { ...definition.targets[1], url: agent.url }] });

  async function waitFor(runId: string, slug: string, until: (s: any) => boolean = (s) => s.status !== 'running') {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const s = await req('GET', `/api/experiments/runs/${runId}?experimentSlug=${slug}`);
      expect(s.status, s.text).toBe(200);
      if (until(s.body)) return s.body;
      if (Date.now() > deadline) throw new Error(`run ${runId} still ${JSON.stringify(s.body)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('defines an experiment by slug: defaults filled, aliases resolved, header values masked; read back', async () => {
    const put = await req('PUT', '/api/experiments/QA check/definition', withAgent());
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({
      slug: 'qa-check',
      name: 'QA check',
      type: 'EVALUATIONS_V3',
      dataset: { slug: 'questions', name: 'Questions', version: null },
      concurrency: 4,
      evaluators: [{ id: 'no-competitors', evaluator: 'llm/competitor_blocklist', name: expect.any(String), mapping: { output: 'target.output', input: 'dataset.question' } }],
    });
    expect(put.body.targets[0]).toMatchObject({ id: 'qa-prompt', type: 'prompt', prompt: 'qa', name: 'qa v1', variables: { question: 'dataset.question' } });
    expect(put.body.targets[1]).toMatchObject({ id: 'my-agent', type: 'http', headers: { 'x-agent-key': '****' }, timeout_ms: 30000 });
    const got = await req('GET', '/api/experiments/qa-check/definition');
    expect(got.status).toBe(200);
    expect(got.body).toEqual(put.body);
    const list = await req('GET', '/api/experiments');
    expect(list.body.experiments.find((e: { slug: string }) => e.slug === 'qa-check')).toMatchObject({ type: 'EVALUATIONS_V3', runsCount: 0 });
  });

  it('keeps header values encrypted at rest, masked when read, and across a PUT that does not resend them', async () => {
    const token = 'Bearer agent-token-Zx81Qw';
    const agentTarget = { id: 'agent', type: 'http', url: agent.url, output_field: 'answer' };
    const put = await req('PUT', '/api/experiments/sealed-headers/definition', { targets: [{ ...agentTarget, headers: { 'x-agent-key': 'secret', authorization: token } }] });
    expect(put.status, put.text).toBe(200);
    expect(put.body.targets[0].headers).toEqual({ 'x-agent-key': '****', authorization: '****81Qw' });
    expect(put.text).not.toContain('agent-token');
    expect((await req('GET', '/api/experiments/sealed-headers/definition')).body.targets[0].headers).toEqual({ 'x-agent-key': '****', authorization: '****81Qw' });
    const atRest = async () => JSON.stringify(await rows(t.db.orm, sql`SELECT definition::text AS d FROM experiment_definitions UNION ALL SELECT plan::text FROM experiment_platform_runs`));
    expect(await atRest()).not.toContain('agent-token');

    const runOne = async () => {
      const start = await req('POST', '/api/experiments/sealed-headers/run', { data: [{ question: 'hi' }] });
      expect(start.status, start.text).toBe(200);
      await waitFor(start.body.runId, 'sealed-headers');
      return (await req('GET', `/api/experiments/runs/${start.body.runId}/results?experimentSlug=sealed-headers`)).body.dataset[0];
    };
    // Not resent: the stored headers stay (the agent gets its key).
    expect((await req('PUT', '/api/experiments/sealed-headers/definition', { targets: [{ ...agentTarget, timeout_ms: 5000 }] })).status).toBe(200);
    expect((await req('GET', '/api/experiments/sealed-headers/definition')).body.targets[0]).toMatchObject({ timeout_ms: 5000, headers: { 'x-agent-key': '****', authorization: '****81Qw' } });
    expect(await runOne()).toMatchObject({ error: null, predicted: { output: 'HI' } });
    expect(await atRest()).not.toContain('agent-token');

    // Read back, edited and written: a masked value keeps its stored value; one it cannot match is refused.
    const back = (await req('GET', '/api/experiments/sealed-headers/definition')).body.targets[0];
    expect((await req('PUT', '/api/experiments/sealed-headers/definition', { targets: [{ ...agentTarget, headers: { ...back.headers, 'x-trace': 'on' } }] })).status).toBe(200);
    expect(await runOne()).toMatchObject({ error: null });
    const unknownMask = await req('PUT', '/api/experiments/sealed-headers/definition', { targets: [{ ...agentTarget, headers: { 'x-other': '****' } }] });
    expect(unknownMask.status).toBe(400);
    expect(unknownMask.body.error.meta.field).toBe('body.targets.0.headers.x-other');
    // An empty set clears them: the agent refuses the call.
    expect((await req('PUT', '/api/experiments/sealed-headers/definition', { targets: [{ ...agentTarget, headers: {} }] })).body.targets[0].headers).toBeUndefined();
    expect((await runOne()).error).toMatch(/^http_401/);
  });

  it('refuses bad definitions with 400 naming the field, and SDK experiments with 409', async () => {
    const unknownDataset = await req('PUT', '/api/experiments/bad-one/definition', { ...withAgent(), dataset: { id: 'nope' } });
    expect(unknownDataset.status).toBe(404);
    expect(unknownDataset.body.error).toMatchObject({ code: 'dataset_not_found', meta: { field: 'body.dataset.id' } });
    const cases: [unknown, string][] = [
      [{ ...withAgent(), dataset: { id: 'questions', version: 99 } }, 'body.dataset.version'],
      [{ ...withAgent(), targets: [] }, 'body.targets'],
      [{ ...withAgent(), targets: [{ id: 'p', type: 'prompt', prompt: 'missing' }] }, 'body.targets.0.prompt'],
      [{ ...withAgent(), targets: [{ id: 'p', type: 'prompt', prompt: 'qa', variables: { question: 'dataset.nope' } }] }, 'body.targets.0.variables.question'],
      [{ ...withAgent(), targets: [{ id: 'a', type: 'http', url: 'ftp://x' }] }, 'body.targets.0.url'],
      [{ ...withAgent(), targets: [{ id: 'a', type: 'robot' }] }, 'body.targets.0.type'],
      [{ ...withAgent(), evaluators: [{ ...blocklist, evaluator: 'nope/nothing' }] }, 'body.evaluators.0.evaluator'],
      [{ ...withAgent(), evaluators: [{ ...blocklist, settings: { colour: 'red' } }] }, 'body.evaluators.0.settings.colour'],
      [{ ...withAgent(), evaluators: [{ ...blocklist, mapping: { output: 'dataset.nope' } }] }, 'body.evaluators.0.mapping.output'],
      [{ ...withAgent(), evaluators: [{ ...blocklist, mapping: { colour: 'target.output' } }] }, 'body.evaluators.0.mapping.colour'],
      [{ ...withAgent(), evaluators: [{ ...blocklist, mapping: { output: 'somewhere' } }] }, 'body.evaluators.0.mapping.output'],
      [{ ...withAgent(), evaluators: [{ id: 'r', evaluator: 'rag/context_recall' }] }, 'body.evaluators.0.mapping.contexts'],
      [{ ...withAgent(), concurrency: 0 }, 'body.concurrency'],
    ];
    for (const [body, field] of cases) {
      const res = await req('PUT', '/api/experiments/bad-one/definition', body);
      expect(res.status, `${field}: ${res.text}`).toBe(400);
      expect(res.body.error.meta.field, res.text).toBe(field);
    }
    expect((await req('GET', '/api/experiments/bad-one/definition')).status).toBe(404);
    await req('POST', '/api/experiment/init', { experiment_type: 'BATCH_EVALUATION_V2', experiment_slug: 'logged-one' });
    const clash = await req('PUT', '/api/experiments/logged-one/definition', withAgent());
    expect(clash.status).toBe(409);
    const run = await req('POST', '/api/experiments/logged-one/run');
    expect(run.status).toBe(404);
    expect(run.body.error.code).toBe('experiment_not_found');
    expect((await req('PUT', '/api/experiments/runs/definition', withAgent())).status).toBe(400);
  });

  it('runs every row on every target: results, evaluations and traces, read by the runs, results and status routes', async () => {
    const start = await req('POST', '/api/experiments/qa-check/run');
    expect(start.status, start.text).toBe(200);
    expect(start.body).toMatchObject({ status: 'running', total: 6 });
    expect(start.body.runUrl).toBe(`${t.baseUrl}/p/${t.creds.project.id}/experiments/qa-check?runId=${start.body.runId}`);
    const status = await waitFor(start.body.runId, 'qa-check');
    expect(status).toMatchObject({ status: 'completed', progress: 6, total: 6 });
    expect(status.summary).toMatchObject({ totalCells: 6, failedCells: 0, completedCells: 6, totalPassed: 5, totalFailed: 1 });
    expect(status.summary.evaluators).toEqual([expect.objectContaining({ evaluatorId: 'no-competitors', passed: 5, failed: 1 })]);

    const results = await req('GET', `/api/evaluations/v3/runs/${start.body.runId}/results?experimentSlug=qa-check`);
    expect(results.status).toBe(200);
    const rows = results.body.dataset as { index: number; targetId: string; predicted: { output: string }; traceId: string; entry: object; error: string | null; duration: number }[];
    expect(rows.map((r) => [r.index, r.targetId])).toEqual([[0, 'my-agent'], [0, 'qa-prompt'], [1, 'my-agent'], [1, 'qa-prompt'], [2, 'my-agent'], [2, 'qa-prompt']]);
    expect(rows[0]).toMatchObject({ entry: { question: 'What is 2+2?', expected: '4' }, predicted: { output: 'WHAT IS 2+2?' }, error: null });
    expect(rows[1].predicted).toEqual({ output: 'The answer to: What is 2+2?' });
    for (const r of rows) expect(r.traceId).toMatch(/^[0-9a-f]{32}$/);
    const evals = results.body.evaluations as { index: number; targetId: string; evaluator: string; passed: boolean; status: string; inputs: object }[];
    expect(evals).toHaveLength(6);
    expect(evals.filter((e) => e.passed === false).map((e) => [e.index, e.targetId])).toEqual([[1, 'qa-prompt']]);
    expect(evals[0].inputs).toEqual({ output: 'WHAT IS 2+2?', input: 'What is 2+2?' });
    expect(results.body.targets.map((x: { id: string; type: string }) => [x.id, x.type])).toEqual([['qa-prompt', 'prompt'], ['my-agent', 'agent']]);

    // Every target call is a trace of the project.
    for (const r of [rows[0], rows[1]]) {
      const trace = await req('GET', `/api/trace/${r.traceId}`);
      expect(trace.status, trace.text).toBe(200);
    }
    const runs = await req('GET', '/api/experiments/runs?experimentSlug=qa-check');
    expect(runs.body.runs[0]).toMatchObject({ runId: start.body.runId, progress: 6, total: 6 });
    expect(runs.body.runs[0].summary.evaluations['no-competitors'].averagePassed).toBeCloseTo(5 / 6);
  });

  it('maps a variable to a constant; the run is named by its prompt, version, model and start, and records the model it ran', async () => {
    const tone = await req('POST', '/api/prompts', {
      handle: 'toned',
      prompt: 'Answer in a {{tone}} voice.',
      messages: [{ role: 'user', content: '{{user_question}}' }],
      inputs: [{ identifier: 'user_question', type: 'str' }, { identifier: 'tone', type: 'str' }],
    });
    expect(tone.status, tone.text).toBe(200);
    const toned = (variables?: Record<string, string>) => ({ dataset: { id: 'questions' }, targets: [{ id: 'toned', type: 'prompt', prompt: 'toned', ...(variables ? { variables } : {}) }], evaluators: [], concurrency: 1 });
    // Neither variable has a column of its name: the refusal says how to map it, column or constant.
    const unmapped = await req('PUT', '/api/experiments/toned/definition', toned());
    expect(unmapped.status).toBe(400);
    expect(unmapped.body.error.meta.field).toBe('body.targets.0.variables.user_question');
    expect(unmapped.body.error.message).toContain('"constant:<text>"');
    const badSource = await req('PUT', '/api/experiments/toned/definition', toned({ user_question: 'dataset.question', tone: 'friendly' }));
    expect(badSource.status).toBe(400);
    expect(badSource.body.error.meta.field).toBe('body.targets.0.variables.tone');

    const put = await req('PUT', '/api/experiments/toned/definition', toned({ user_question: 'dataset.question', tone: 'constant:friendly' }));
    expect(put.status, put.text).toBe(200);
    expect(put.body.targets[0].variables).toEqual({ user_question: 'dataset.question', tone: 'constant:friendly' });
    const before = openai.requests.length;
    const started = await req('POST', '/api/experiments/toned/run');
    expect(started.status, started.text).toBe(200);
    const done = await waitFor(started.body.runId, 'toned');
    expect(done.status).toBe('completed');
    const sent = openai.requests.slice(before).map((r) => (r.body as { messages: { role: string; content: string }[] }).messages);
    expect(sent).toHaveLength(3);
    for (const messages of sent) expect(messages[0]).toEqual({ role: 'system', content: 'Answer in a friendly voice.' });
    expect(sent.map((m) => m[1].content).sort()).toEqual(['Capital of France?', 'What is 2+2?', 'Who makes rockets?']);

    const runs = await req('GET', '/api/experiments/runs?experimentSlug=toned');
    const run = runs.body.runs[0];
    const minute = new Date(run.timestamps.createdAt).toISOString().slice(0, 16).replace('T', ' ');
    expect(run.name).toBe(`toned v1 · openai/gpt-4o-mini · ${minute}`);
    expect(done.name).toBe(run.name);
    expect(run.targets).toEqual([expect.objectContaining({ id: 'toned', type: 'prompt', promptId: 'toned', promptVersion: 1, model: 'openai/gpt-4o-mini' })]);
    // Renamed, then back to the made name.
    const rename = (name: string | null) => req('PATCH', `/api/experiments/toned/runs/${run.runId}`, { name });
    expect((await rename('friendly tone')).body.name).toBe('friendly tone');
    expect((await req('GET', `/api/experiments/runs/${run.runId}?experimentSlug=toned`)).body.name).toBe('friendly tone');
    expect((await rename(null)).body.name).toBe(run.name);
  });

  it('streams the run as server-sent events ending with done; body fields choose rows and override values', async () => {
    const res = await fetch(`${t.baseUrl}/api/evaluations/v3/qa-check/run`, {
      method: 'POST',
      headers: { 'x-auth-token': key, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ row_indices: [2, 0], parameters: { expected: 'override' } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    const frames = text.split('\n\n').filter(Boolean);
    for (const f of frames) expect(f.startsWith('data: ')).toBe(true);
    const events = frames.map((f) => JSON.parse(f.slice(6)) as { type: string; [k: string]: unknown });
    expect(events[0]).toMatchObject({ type: 'execution_started', total: 4 });
    expect(events.at(-1)).toMatchObject({ type: 'done', summary: { totalCells: 4 } });
    expect(events.filter((e) => e.type === 'target_result')).toHaveLength(4);
    expect(events.filter((e) => e.type === 'evaluator_result')).toHaveLength(4);
    expect(events.filter((e) => e.type === 'progress').at(-1)).toMatchObject({ completed: 4, total: 4 });
    const runId = events[0].runId as string;
    const results = await req('GET', `/api/experiments/runs/${runId}/results?experimentSlug=qa-check`);
    expect([...new Set(results.body.dataset.map((r: { index: number }) => r.index))]).toEqual([0, 2]);
    expect(results.body.dataset[0].entry).toEqual({ question: 'What is 2+2?', expected: 'override' });
  });

  it('faults: a target that times out, answers 500 or non-JSON records its error and the run goes on; an evaluator error is an error evaluation', async () => {
    const def = {
      targets: [{ id: 'agent', type: 'http', url: agent.url, headers: { 'x-agent-key': 'secret' }, output_field: 'answer', timeout_ms: 1000 }],
      evaluators: [{ id: 'recall', evaluator: 'rag/context_recall', mapping: { contexts: 'target.output', expected_contexts: 'dataset.expected' } }],
    };
    expect((await req('PUT', '/api/experiments/faults/definition', def)).status).toBe(200);
    const start = await req('POST', '/api/experiments/faults/run', { data: [{ question: 'slow' }, { question: 'fail' }, { question: 'text' }, { question: 'fine', expected: ['FINE'] }] });
    expect(start.status, start.text).toBe(200);
    const status = await waitFor(start.body.runId, 'faults');
    expect(status).toMatchObject({ status: 'completed', progress: 4, total: 4 });
    expect(status.summary).toMatchObject({ totalCells: 4, failedCells: 3 });
    const results = await req('GET', `/api/experiments/runs/${start.body.runId}/results?experimentSlug=faults`);
    const errors = results.body.dataset.map((r: { error: string | null }) => r.error?.split(':')[0] ?? null);
    expect(errors).toEqual(['timeout', 'http_500', 'invalid_json', null]);
    for (const r of results.body.dataset) expect(r.traceId).toMatch(/^[0-9a-f]{32}$/);
    // "FINE" is a string where the evaluator takes a list of contexts: its data is refused.
    expect(results.body.evaluations).toEqual([expect.objectContaining({ index: 3, evaluator: 'recall', status: 'error', details: expect.stringContaining('data.contexts') })]);
  });

  it('a call whose trace cannot be stored: its row says so (trace_not_recorded, no trace), the next run records again', async () => {
    // The database refuses the spans of this target's calls (a constraint of the test's own), as it
    // would refuse any write it cannot take: the call was made, its trace was not stored.
    const def = { targets: [{ id: 'agent', name: 'untraceable', type: 'http', url: agent.url, headers: { 'x-agent-key': 'secret' }, output_field: 'answer' }] };
    expect((await req('PUT', '/api/experiments/untraced/definition', def)).status).toBe(200);
    const run = async () => {
      const start = await req('POST', '/api/experiments/untraced/run', { data: [{ question: 'one' }, { question: 'two' }] });
      expect(start.status, start.text).toBe(200);
      const status = await waitFor(start.body.runId, 'untraced');
      expect(status).toMatchObject({ status: 'completed', progress: 2, total: 2 });
      const results = await req('GET', `/api/experiments/runs/${start.body.runId}/results?experimentSlug=untraced`);
      // The rows the experiment page reads (its error column).
      const page = await req('GET', `/api/experiments/untraced/runs/${start.body.runId}/rows?pageSize=50`);
      expect(page.status, page.text).toBe(200);
      return { status, results: results.body.dataset, rows: page.body.rows };
    };
    await t.db.orm.execute(sql`ALTER TABLE spans ADD CONSTRAINT test_refuses_untraceable CHECK (name IS DISTINCT FROM 'agent untraceable')`);
    let refused: Awaited<ReturnType<typeof run>>;
    try {
      refused = await run();
    } finally {
      await t.db.orm.execute(sql`ALTER TABLE spans DROP CONSTRAINT test_refuses_untraceable`);
    }
    expect(refused.status.summary).toMatchObject({ totalCells: 2, failedCells: 2 });
    expect(refused.results).toHaveLength(2);
    for (const r of [...refused.results, ...refused.rows]) expect(r).toMatchObject({ traceId: null, error: expect.stringMatching(/^trace_not_recorded: \S/) });

    const recorded = await run();
    expect(recorded.status.summary).toMatchObject({ totalCells: 2, failedCells: 0 });
    for (const r of [...recorded.results, ...recorded.rows]) expect(r).toMatchObject({ error: null, traceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect([...recorded.results].sort((a, b) => a.index - b.index).map((r: { predicted: unknown }) => r.predicted)).toEqual([{ output: 'ONE' }, { output: 'TWO' }]);
  });

  it('stops a run: status stopped with its summary, no cell started after', async () => {
    const def = { targets: [{ id: 'agent', type: 'http', url: agent.url, headers: { 'x-agent-key': 'secret' }, output_field: 'answer', timeout_ms: 10_000 }], concurrency: 1 };
    expect((await req('PUT', '/api/experiments/stoppable/definition', def)).status).toBe(200);
    const start = await req('POST', '/api/experiments/stoppable/run', { data: Array.from({ length: 20 }, () => ({ question: 'slow' })) });
    expect(start.status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    const stop = await req('POST', `/api/experiments/stoppable/runs/${start.body.runId}/stop`);
    expect(stop.status, stop.text).toBe(200);
    expect(stop.body).toEqual({ runId: start.body.runId, status: 'stopped' });
    const status = await waitFor(start.body.runId, 'stoppable');
    expect(status.status).toBe('stopped');
    expect(status.summary).toBeDefined();
    const calls = agent.calls();
    await new Promise((r) => setTimeout(r, 1500));
    expect(agent.calls()).toBe(calls);
    expect(status.progress).toBeLessThan(20);
    expect((await req('POST', `/api/experiments/stoppable/runs/run_nope/stop`)).status).toBe(404);
  });

  it('start: 400 naming the field for bad bodies', async () => {
    const cases: [unknown, string][] = [
      [{ row_indices: [5] }, 'body.row_indices.0'],
      [{ data: [{ question: 'x' }], dataset_id: 'questions' }, 'body.dataset_id'],
      [{ data: 'rows' }, 'body.data'],
      [{ parameters: { question: { nested: true } } }, 'body.parameters.question'],
    ];
    for (const [body, field] of cases) {
      const res = await req('POST', '/api/experiments/qa-check/run', body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.meta.field).toBe(field);
    }
    const noDataset = await req('POST', '/api/experiments/faults/run');
    expect(noDataset.status).toBe(400);
    expect(noDataset.body.error.meta.field).toBe('body.data');
    const unknownDataset = await req('POST', '/api/experiments/faults/run', { dataset_id: 'nope' });
    expect(unknownDataset.status).toBe(404);
    expect(unknownDataset.body.error.code).toBe('dataset_not_found');
    const badJson = await t.request('POST', '/api/experiments/qa-check/run', { authToken: key, rawBody: '{oops', headers: { 'content-type': 'application/json' } });
    expect(badJson.status).toBe(400);
    // An empty body with a JSON content type (some clients send one) runs the saved dataset.
    const empty = await t.request('POST', '/api/experiments/qa-check/run', { authToken: key, rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body.total).toBe(6);
    await waitFor(empty.body.runId, 'qa-check');
  });

  it('another project sees none of it: 404 for the definition, start and stop', async () => {
    const token = other.projectToken;
    expect((await req('GET', '/api/experiments/qa-check/definition', undefined, token)).status).toBe(404);
    const run = await req('POST', '/api/experiments/qa-check/run', undefined, token);
    expect(run.status).toBe(404);
    expect(run.body.error.code).toBe('experiment_not_found');
    const mine = await req('POST', '/api/experiments/qa-check/run', { row_indices: [0] });
    expect((await req('POST', `/api/experiments/qa-check/runs/${mine.body.runId}/stop`, undefined, token)).status).toBe(404);
    expect((await req('GET', `/api/experiments/runs/${mine.body.runId}`, undefined, token)).status).toBe(404);
    // The other project's definition may name our dataset or prompt: neither is found there.
    const theirs = await req('PUT', '/api/experiments/qa-check/definition', withAgent(), token);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('dataset_not_found');
    await waitFor(mine.body.runId, 'qa-check');
  });
});
