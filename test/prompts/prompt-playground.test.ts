import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { computeCost } from '../../src/modules/traces/index.ts';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { anthropicStreamReply, errorReply, startFakeServer, streamReply, streamToolCallReply, toolCallReply, type FakeServer } from '../evaluators/fake-servers.ts';

const KEY = 'sk-playground-secret-Zq81LmNoPq';
const ANTHROPIC_KEY = 'anthropic-playground-key-Xy42';
const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

/** Server-sent events as `data: <json>` frames, in order. */
async function runStreamed(t: TestApp, token: string, projectId: string, id: string, body: unknown): Promise<{ status: number; contentType: string; events: any[]; text: string }> {
  const res = await fetch(`${t.baseUrl}/api/prompts/${id}/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'x-project-id': projectId, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const events = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? text
        .split('\n\n')
        .filter((frame) => frame.startsWith('data: '))
        .map((frame) => JSON.parse(frame.slice('data: '.length)))
    : [];
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', events, text };
}

describe.each(appDatabaseKinds)('the prompt playground: parameters, tools, streaming (%s)', (kind) => {
  let t: TestApp;
  let fake: FakeServer;
  let admin: string;
  let projectId: string;
  beforeAll(async () => {
    fake = await startFakeServer();
    t = await startApp(kind);
    admin = t.creds.adminApiKey;
    projectId = t.creds.project.id;
    const local = await asAdmin('POST', '/api/model-providers', { name: 'local', kind: 'openai_compatible', api_key: KEY, base_url: `${fake.url}/v1`, models: ['gpt-4o-mini', 'llama3'] });
    expect(local.status, local.text).toBe(201);
    const claude = await asAdmin('POST', '/api/model-providers', { name: 'claude', kind: 'anthropic', api_key: ANTHROPIC_KEY, base_url: fake.url, models: ['claude-3-5-haiku-latest'] });
    expect(claude.status, claude.text).toBe(201);
    const created = await asAdmin('POST', '/api/prompts', {
      handle: 'weather',
      prompt: 'You help travellers.',
      messages: [{ role: 'user', content: 'What should I wear in {{city}}?' }],
      inputs: [{ identifier: 'city', type: 'str' }],
      model: 'local/gpt-4o-mini',
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body.parameters).toEqual({});
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
  });

  const asAdmin = (method: string, url: string, body?: unknown) => t.request(method, url, { token: admin, projectId, body });
  const run = (body: unknown, id = 'weather') => asAdmin('POST', `/api/prompts/${id}/run`, body);
  const variables = { city: 'Paris' };

  it('passes temperature, max_tokens, top_p, stop, seed and response_format through to the provider, and answers the parameters sent', async () => {
    fake.queue({ kind: 'json', body: { id: 'c', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: '{"wear":"a coat"}' }, finish_reason: 'stop' }], usage: { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 } } });
    const parameters = { temperature: 0.3, max_tokens: 50, top_p: 0.9, stop: ['END'], seed: 7, response_format: { type: 'json_object' } };
    const res = await run({ variables, parameters });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ output: { content: '{"wear":"a coat"}' }, tool_calls: [], finish_reason: 'stop', parameters, ttft_ms: null });
    const sent = fake.requests.at(-1)!.body;
    expect(sent).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.3, max_tokens: 50, top_p: 0.9, stop: ['END'], seed: 7, response_format: { type: 'json_object' } });
    expect(sent.stream).toBeFalsy();
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    const trace = await t.request('GET', `/api/trace/${res.body.trace_id}`, { token: admin, projectId });
    expect(trace.body.spans[0].params).toMatchObject({ temperature: 0.3, max_tokens: 50, seed: 7 });
  });

  it('sends a json_schema response format, strict only when asked', async () => {
    const schema = { type: 'object', properties: { wear: { type: 'string' } }, required: ['wear'], additionalProperties: false };
    fake.queue(streamReply(['{"wear":', '"boots"}']));
    const res = await runStreamed(t, admin, projectId, 'weather', { variables, parameters: { response_format: { type: 'json_schema', json_schema: { name: 'outfit', schema, strict: true } } } });
    expect(res.status, res.text).toBe(200);
    expect(fake.requests.at(-1)!.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'outfit', schema, strict: true } });
    expect(res.events.at(-1)).toMatchObject({ type: 'done', output: { content: '{"wear":"boots"}' } });
  });

  it('declares tools as JSON Schema and answers the calls the model made, without running them; the trace keeps them', async () => {
    fake.queue(toolCallReply('get_weather', { city: 'Paris' }, { prompt_tokens: 300, completion_tokens: 20 }, 'gpt-4o-mini-2024-07-18'));
    const res = await run({ variables, parameters: { tools: [weatherTool], tool_choice: 'required' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ output: { content: '' }, tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }], finish_reason: 'tool-calls' });
    const sent = fake.requests.at(-1)!.body;
    expect(sent.tools).toHaveLength(1);
    expect(sent.tools[0]).toMatchObject({ type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: weatherTool.function.parameters } });
    expect(sent.tool_choice).toBe('required');
    const trace = await t.request('GET', `/api/trace/${res.body.trace_id}`, { token: admin, projectId });
    expect(JSON.stringify(trace.body.spans[0].output)).toContain('get_weather');

    fake.queue(toolCallReply('get_weather', { city: 'Oslo' }));
    const named = await run({ variables, parameters: { tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'get_weather' } } } });
    expect(named.status, named.text).toBe(200);
    expect(fake.requests.at(-1)!.body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
  });

  it('streams text as it comes, then one done event with TTFT, duration, tokens and cost from the price table', async () => {
    fake.queue(streamReply(['Bring ', 'a light ', 'jacket.'], { gapMs: 40, usage: { prompt_tokens: 1000, completion_tokens: 40 } }));
    const res = await runStreamed(t, admin, projectId, 'weather', { variables, parameters: { temperature: 0.2 } });
    expect(res.status, res.text).toBe(200);
    expect(res.contentType).toMatch(/^text\/event-stream/);
    expect(res.events.map((e) => e.type)).toEqual(['text', 'text', 'text', 'done']);
    expect(res.events.slice(0, 3).map((e) => e.text)).toEqual(['Bring ', 'a light ', 'jacket.']);
    const done = res.events[3];
    const expected = computeCost({ model: 'gpt-4o-mini-2024-07-18', vendor: 'openai', promptTokens: 1000, completionTokens: 40, cachedInputTokens: 0, reasoningTokens: 0 });
    expect(done).toMatchObject({ output: { role: 'assistant', content: 'Bring a light jacket.' }, model: 'gpt-4o-mini-2024-07-18', usage: { prompt_tokens: 1000, completion_tokens: 40 }, finish_reason: 'stop' });
    expect(done.cost.amount).toBeCloseTo(expected!.amount, 12);
    expect(done.ttft_ms).toBeGreaterThanOrEqual(0);
    // Three gaps of 40 ms come after the first token.
    expect(done.latency_ms - done.ttft_ms).toBeGreaterThanOrEqual(60);
    const sent = fake.requests.at(-1)!.body;
    expect(sent).toMatchObject({ stream: true, temperature: 0.2 });
    const trace = await t.request('GET', `/api/trace/${done.trace_id}`, { token: admin, projectId });
    expect(trace.status).toBe(200);
    expect(trace.body.output.value).toBe('Bring a light jacket.');
  });

  it('streams tool calls as events before done', async () => {
    fake.queue(streamToolCallReply('get_weather', ['{"ci', 'ty":"Ro', 'me"}']));
    const res = await runStreamed(t, admin, projectId, 'weather', { variables, parameters: { tools: [weatherTool] } });
    expect(res.status, res.text).toBe(200);
    expect(res.events.map((e) => e.type)).toEqual(['tool_call', 'done']);
    expect(res.events[0]).toEqual({ type: 'tool_call', id: 'call_7', name: 'get_weather', arguments: { city: 'Rome' } });
    expect(res.events[1]).toMatchObject({ tool_calls: [{ id: 'call_7', name: 'get_weather', arguments: { city: 'Rome' } }], finish_reason: 'tool-calls', usage: { prompt_tokens: 500, completion_tokens: 12 } });
    expect(res.events[1].ttft_ms).toEqual(expect.any(Number));
  });

  it('a provider failure before the first token answers as without streaming (502, no key in it)', async () => {
    t.app.services.evaluations.limits.maxRetries = 0;
    try {
      fake.queue(errorReply(401, `Incorrect API key provided: ${KEY}`));
      const res = await runStreamed(t, admin, projectId, 'weather', { variables });
      expect(res.status).toBe(502);
      expect(res.contentType).toMatch(/application\/json/);
      const body = JSON.parse(res.text);
      expect(body.error.code).toBe('provider_error');
      expect(res.text).not.toContain(KEY);
    } finally {
      t.app.services.evaluations.limits.maxRetries = 2;
    }
  });

  it('a provider failure mid-stream ends the stream with an error event (no key in it), and the run is a failed trace', async () => {
    const chunk = (content: string) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] });
    fake.queue({ kind: 'sse', chunks: [chunk('Half an '), { error: { message: `overloaded while serving ${KEY}`, type: 'server_error' } }] });
    const res = await runStreamed(t, admin, projectId, 'weather', { variables });
    expect(res.status).toBe(200);
    expect(res.events.map((e) => e.type)).toEqual(['text', 'error']);
    expect(res.events[1].error).toMatchObject({ code: 'provider_error' });
    expect(res.events[1].error.message).toContain('overloaded');
    expect(res.text).not.toContain(KEY);
    const traceId = res.events[1].error.meta.trace_id;
    const trace = await t.request('GET', `/api/trace/${traceId}`, { token: admin, projectId });
    expect(trace.body.error).toMatchObject({ has_error: true });
    expect(JSON.stringify(trace.body)).not.toContain(KEY);
  });

  it('a version keeps its parameters; a run sends them, its own over them key by key', async () => {
    const saved = await asAdmin('PUT', '/api/prompts/weather', { commitMessage: 'cooler, with tools', model: 'local/llama3', parameters: { temperature: 0.1, max_tokens: 200, tools: [weatherTool] } });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({ version: 2, model: 'local/llama3', parameters: { temperature: 0.1, max_tokens: 200, tools: [weatherTool] } });
    const read = await asAdmin('GET', '/api/prompts/weather');
    expect(read.body.parameters).toEqual(saved.body.parameters);

    fake.queue(streamReply(['Layers.']));
    const res = await runStreamed(t, admin, projectId, 'weather', { variables, parameters: { temperature: 0.7 } });
    expect(res.status, res.text).toBe(200);
    expect(fake.requests.at(-1)!.body).toMatchObject({ model: 'llama3', temperature: 0.7, max_tokens: 200 });
    expect(fake.requests.at(-1)!.body.tools).toHaveLength(1);
    expect(res.events.at(-1).parameters).toMatchObject({ temperature: 0.7, max_tokens: 200 });

    // Version 1 still runs without them.
    fake.queue(streamReply(['Coat.']));
    expect((await runStreamed(t, admin, projectId, 'weather', { variables, version: 1 })).status).toBe(200);
    expect(fake.requests.at(-1)!.body.temperature).toBeUndefined();
    expect(fake.requests.at(-1)!.body.tools).toBeUndefined();

    const restored = await asAdmin('POST', '/api/prompts/weather/versions/2/restore', {});
    expect(restored.body.parameters).toMatchObject({ temperature: 0.1 });
  });

  it('Anthropic: parameters and tools go to its Messages API; a stream gets its text piece by piece and its tool calls whole', async () => {
    fake.queue(anthropicStreamReply(['A ', 'warm ', 'scarf.'], { tool: { id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }, usage: { input_tokens: 40, output_tokens: 9 } }));
    const res = await runStreamed(t, admin, projectId, 'weather', { variables, version: 1, model: 'claude/claude-3-5-haiku-latest', parameters: { temperature: 0.5, max_tokens: 300, top_p: 0.8, stop: 'END', tools: [weatherTool], tool_choice: 'auto' } });
    expect(res.status, res.text).toBe(200);
    expect(res.events.map((e) => e.type)).toEqual(['text', 'text', 'text', 'tool_call', 'done']);
    expect(res.events.slice(0, 3).map((e) => e.text)).toEqual(['A ', 'warm ', 'scarf.']);
    expect(res.events[3]).toMatchObject({ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Oslo' } });
    expect(res.events[4]).toMatchObject({ output: { content: 'A warm scarf.' }, usage: { prompt_tokens: 40, completion_tokens: 9 }, finish_reason: 'tool-calls' });
    const sent = fake.requests.at(-1)!;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.body).toMatchObject({ stream: true, model: 'claude-3-5-haiku-latest', temperature: 0.5, max_tokens: 300, top_p: 0.8, stop_sequences: ['END'], tool_choice: { type: 'auto' } });
    expect(sent.body.tools).toEqual([{ name: 'get_weather', description: 'The weather in a city', input_schema: weatherTool.function.parameters }]);

    // Unstreamed, the same call answers in one piece.
    fake.queue({
      kind: 'json',
      body: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-3-5-haiku-20241022', stop_reason: 'end_turn', content: [{ type: 'text', text: 'A scarf.' }], usage: { input_tokens: 40, output_tokens: 4 } },
    });
    const whole = await run({ variables, version: 1, model: 'claude/claude-3-5-haiku-latest' });
    expect(whole.status, whole.text).toBe(200);
    expect(whole.body.output).toMatchObject({ content: 'A scarf.' });
    expect(fake.requests.at(-1)!.body.stream).toBeUndefined();
  });

  it('Anthropic: an error event or a stream cut short ends the stream with an error event, without the key', async () => {
    fake.queue({
      kind: 'sse',
      named: true,
      chunks: [
        { type: 'message_start', message: { model: 'claude-3-5-haiku-20241022', usage: { input_tokens: 10, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Half' } },
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      ],
    });
    const failed = await runStreamed(t, admin, projectId, 'weather', { variables, version: 1, model: 'claude/claude-3-5-haiku-latest' });
    expect(failed.status).toBe(200);
    expect(failed.events.map((e) => e.type)).toEqual(['text', 'error']);
    expect(failed.events[1].error).toMatchObject({ code: 'provider_error' });
    expect(failed.events[1].error.message).toContain('Overloaded');

    fake.queue(anthropicStreamReply(['Cut '], { cut: true }));
    const cut = await runStreamed(t, admin, projectId, 'weather', { variables, version: 1, model: 'claude/claude-3-5-haiku-latest' });
    expect(cut.events.map((e) => e.type)).toEqual(['text', 'error']);
    expect(cut.events[1].error.message).toContain('ended its stream before the answer was complete');
    expect(cut.text).not.toContain(ANTHROPIC_KEY);
  });

  it('every bad parameter is a 400 naming the field, before any call to the provider', async () => {
    const cases: Array<[unknown, string, string?]> = [
      [{ temperature: 3 }, 'parameters.temperature'],
      [{ temperature: 'hot' }, 'parameters.temperature'],
      [{ max_tokens: 0 }, 'parameters.max_tokens'],
      [{ max_tokens: 1.5 }, 'parameters.max_tokens'],
      [{ top_p: 1.5 }, 'parameters.top_p'],
      [{ stop: ['a', 'b', 'c', 'd', 'e'] }, 'parameters.stop'],
      [{ seed: 0.5 }, 'parameters.seed'],
      [{ response_format: { type: 'xml' } }, 'parameters.response_format'],
      [{ response_format: { type: 'json_schema', json_schema: { name: 'x' } } }, 'parameters.response_format'],
      [{ tools: [{ type: 'function', function: { name: 'has space' } }] }, 'parameters.tools'],
      [{ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string' } } }] }, 'parameters.tools'],
      [{ tools: [weatherTool, weatherTool] }, 'parameters.tools'],
      [{ tool_choice: 'required' }, 'parameters.tool_choice'],
      [{ tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'nope' } } }, 'parameters.tool_choice'],
      [{ frequency: 1 }, 'parameters'],
      [{ seed: 3 }, 'parameters.seed', 'claude/claude-3-5-haiku-latest'],
      [{ temperature: 1.5 }, 'parameters.temperature', 'claude/claude-3-5-haiku-latest'],
      [{ response_format: { type: 'json_object' } }, 'parameters.response_format', 'claude/claude-3-5-haiku-latest'],
    ];
    for (const [parameters, field, model] of cases) {
      const res = await run({ variables, version: 1, parameters, ...(model ? { model } : {}) });
      expect(res.status, `${JSON.stringify(parameters)}: ${res.text}`).toBe(400);
      const named = [res.body.error.meta?.field, ...(res.body.error.meta?.issues ?? []).map((i: { field?: string; path?: string }) => i.field ?? i.path)].filter(Boolean).join(' ') + ' ' + res.body.error.message;
      expect(named, JSON.stringify(parameters)).toContain(field);
    }
    // A streamed run refused the same way: JSON, not a stream.
    const streamed = await runStreamed(t, admin, projectId, 'weather', { variables, parameters: { temperature: -1 } });
    expect(streamed.status).toBe(400);
    expect(streamed.text).toContain('parameters.temperature');
    // Saving a version with a bad tool_choice: 400 as well.
    const bad = await asAdmin('PUT', '/api/prompts/weather', { commitMessage: 'x', parameters: { tool_choice: { type: 'function', function: { name: 'ghost' } } } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('parameters.tool_choice');
    expect(fake.requests).toHaveLength(0);
  });
});
