import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeCost } from '../../src/modules/traces/index.ts';
import { appDatabaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';
import { errorReply, startFakeServer, type FakeServer, type Reply } from '../evaluators/fake-servers.ts';

/** A chat completion as OpenAI answers one, with cached prompt tokens. */
function completion(text: string, model = 'gpt-4o-mini-2024-07-18'): Reply {
  return {
    kind: 'json',
    body: {
      id: 'chatcmpl-run',
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1200, completion_tokens: 30, total_tokens: 1230, prompt_tokens_details: { cached_tokens: 1024 } },
    },
  };
}

describe.each(appDatabaseKinds)('POST /api/prompts/:id/run, "Try it" (%s)', (kind) => {
  let t: TestApp;
  let openai: FakeServer;
  let key: string;
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
  beforeAll(async () => {
    openai = await startFakeServer();
    t = await startApp(kind, { clock, env: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${openai.url}/v1` } });
    key = t.creds.projectApiKey;
    const created = await t.request('POST', '/api/prompts', {
      authToken: key,
      body: {
        handle: 'support/reply',
        prompt: 'You answer for {{company}}.',
        messages: [{ role: 'user', content: '{{question}}' }],
        inputs: [{ identifier: 'company', type: 'str' }, { identifier: 'question', type: 'str' }],
        model: 'openai/gpt-4o-mini',
      },
    });
    expect(created.status).toBe(200);
    const v2 = await t.request('PUT', '/api/prompts/support%2Freply', { authToken: key, body: { commitMessage: 'friendlier', prompt: 'You answer kindly for {{company}}.' } });
    expect(v2.status).toBe(200);
    expect((await t.request('PUT', '/api/prompts/support%2Freply/tags/production', { authToken: key, body: { version: 1 } })).status).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await openai.close();
  });

  const run = (body: unknown, id = 'support%2Freply') => t.request('POST', `/api/prompts/${id}/run`, { authToken: key, body });

  it('runs the newest version and answers the text, tokens, cost and latency; the run is a trace', async () => {
    openai.queue(completion('Your parcel arrives tomorrow.'));
    const res = await run({ variables: { company: 'Acme', question: 'Where is my parcel?' } });
    expect(res.status, res.text).toBe(200);
    const expected = computeCost({ model: 'gpt-4o-mini-2024-07-18', vendor: 'openai', promptTokens: 1200, completionTokens: 30, cachedInputTokens: 1024, reasoningTokens: 0 });
    expect(expected).not.toBeNull();
    expect(res.body).toMatchObject({
      output: { role: 'assistant', content: 'Your parcel arrives tomorrow.' },
      model: 'gpt-4o-mini-2024-07-18',
      usage: { prompt_tokens: 1200, completion_tokens: 30 },
      cost: { currency: 'USD' },
    });
    expect(res.body.cost.amount).toBeCloseTo(expected!.amount, 12);
    expect(res.body.latency_ms).toBeGreaterThanOrEqual(0);
    expect(res.body.trace_id).toMatch(/^[0-9a-f]{32}$/);

    const sent = openai.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer test-key');
    expect(sent.body.model).toBe('gpt-4o-mini');
    expect(sent.body.messages).toEqual([
      { role: 'system', content: 'You answer kindly for Acme.' },
      { role: 'user', content: 'Where is my parcel?' },
    ]);

    const trace = await t.request('GET', `/api/trace/${res.body.trace_id}`, { authToken: key });
    expect(trace.status).toBe(200);
    expect(trace.body.metadata).toMatchObject({ labels: ['prompt-run'], prompt_handle: 'support/reply', prompt_version: 2 });
    expect(trace.body.output.value).toBe('Your parcel arrives tomorrow.');
    expect(trace.body.spans).toHaveLength(1);
    expect(trace.body.spans[0]).toMatchObject({
      type: 'llm',
      model: 'gpt-4o-mini-2024-07-18',
      vendor: 'openai',
      error: null,
      metrics: { prompt_tokens: 1200, completion_tokens: 30, cached_input_tokens: 1024, tokens_estimated: false },
      input: { type: 'chat_messages' },
    });
    expect(trace.body.spans[0].metrics.cost).toBeCloseTo(expected!.amount, 12);
    const found = await t.request('POST', '/api/trace/search', { authToken: key, body: { filters: { labels: ['prompt-run'] } } });
    expect(found.body.traces.map((x: { trace_id: string }) => x.trace_id)).toContain(res.body.trace_id);
  });

  it('runs a chosen version or tag, and another model', async () => {
    openai.queue(completion('v1'), completion('tagged'), completion('other model', 'gpt-4.1-2025-04-14'));
    expect((await run({ version: 1, variables: { company: 'Acme', question: 'Hi' } })).status).toBe(200);
    expect(openai.requests.at(-1)!.body.messages[0].content).toBe('You answer for Acme.');
    expect((await run({ tag: 'production', variables: { company: 'Beta', question: 'Hi' } })).status).toBe(200);
    expect(openai.requests.at(-1)!.body.messages[0].content).toBe('You answer for Beta.');
    const other = await run({ model: 'openai/gpt-4.1', variables: { company: 'Acme', question: 'Hi' } });
    expect(other.body.model).toBe('gpt-4.1-2025-04-14');
    expect(openai.requests.at(-1)!.body.model).toBe('gpt-4.1');
  });

  it('a version with a JSON Schema output sends it as response_format, as the editor says; without one, none is sent', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' }, confidence: { type: 'number' } }, required: ['answer'] };
    const created = await t.request('POST', '/api/prompts', {
      authToken: key,
      body: { handle: 'structured', prompt: 'Answer as JSON.', messages: [{ role: 'user', content: '{{question}}' }], inputs: [{ identifier: 'question', type: 'str' }], outputs: [{ identifier: 'reply', type: 'json_schema', json_schema: schema }], model: 'openai/gpt-4o-mini' },
    });
    expect(created.status, created.text).toBe(200);
    openai.queue(completion('{"answer":"tomorrow","confidence":0.9}'));
    const res = await run({ variables: { question: 'When?' } }, 'structured');
    expect(res.status, res.text).toBe(200);
    expect(res.body.output.content).toBe('{"answer":"tomorrow","confidence":0.9}');
    expect(openai.requests.at(-1)!.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'reply', schema, strict: false } });

    openai.queue(completion('Plain text.'));
    expect((await run({ variables: { company: 'Acme', question: 'Hi' } })).status).toBe(200);
    expect(openai.requests.at(-1)!.body.response_format).toBeUndefined();
  });

  it('refuses what the caller got wrong with a 400 naming the field, before calling the model', async () => {
    const before = openai.requests.length;
    const missing = await run({ variables: { company: 'Acme' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'missing_input' });
    expect(missing.body.error.meta.field).toBe('variables.question');
    const wrongType = await run({ variables: { company: 5, question: 'Hi' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.meta.field).toBe('variables.company');
    const model = await run({ model: 'anthropic/claude-3-5-haiku', variables: { company: 'Acme', question: 'Hi' } });
    expect(model.status).toBe(400);
    expect(model.body.error.meta.field).toBe('model');
    const both = await run({ version: 1, tag: 'production', variables: { company: 'Acme', question: 'Hi' } });
    expect(both.status).toBe(400);
    expect((await run({ variables: {}, extra: 1 })).status).toBe(400);
    expect((await run({ variables: { company: 'Acme', question: 'Hi' } }, 'nope')).status).toBe(404);
    expect(openai.requests.length).toBe(before);
  });

  it("a provider failure answers 502 with the provider's message, and is recorded as a failed trace", async () => {
    t.app.services.evaluations.limits.maxRetries = 0;
    try {
      openai.queue(errorReply(500, 'the model is overloaded'));
      const res = await run({ variables: { company: 'Acme', question: 'Hi' } });
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('provider_error');
      expect(res.body.error.message).toContain('the model is overloaded');
      const traceId = res.body.error.meta.trace_id;
      const trace = await t.request('GET', `/api/trace/${traceId}`, { authToken: key });
      expect(trace.body.error).toMatchObject({ has_error: true });
      expect(trace.body.error.message).toContain('HTTP 500');
    } finally {
      t.app.services.evaluations.limits.maxRetries = 2;
    }
  });

  it('without a configured provider: 503 naming the variable, and no trace', async () => {
    const bare = await startApp(kind, { clock, reopen: t });
    try {
      const res = await bare.request('POST', '/api/prompts/support%2Freply/run', { authToken: key, body: { variables: { company: 'Acme', question: 'Hi' } } });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('provider_not_configured');
      expect(res.body.error.message).toContain('OPENAI_API_KEY');
      expect(res.body.error.meta.variable).toBe('OPENAI_API_KEY');
    } finally {
      await bare.close();
    }
  });
});
