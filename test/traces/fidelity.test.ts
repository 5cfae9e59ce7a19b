/**
 * What real instrumentations send, stored right: LangWatch's typed metrics, token estimates
 * as the provider bills them, failed calls without usage, OpenInference error spans, one
 * model under two names, the AI SDK 7's first-token time, and sharing a trace before its
 * spans arrive. Spans go through the real OpenTelemetry exporters with the attributes the
 * SDKs write (the SDKs themselves run in test/clients/).
 */
import { getEncoding } from 'js-tiktoken';
import { SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { computeCost } from '../../src/modules/traces/index.ts';
import { databaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';
import { spanAt, withExporter } from '../support/otel.ts';

const T0 = Date.parse('2026-11-22T09:00:00Z');
const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');

describe.each(databaseKinds)('trace fidelity (%s)', (kind) => {
  let p: ProjectApp;
  useProjectApp(kind, (app) => (p = app));
  const auth = () => ({ authorization: `Bearer ${p.key}` });
  const detail = async (traceId: string) => {
    const res = await p.t.request('GET', `/api/trace/${traceId}`, { token: p.key });
    expect(res.status).toBe(200);
    return res.body;
  };
  /** One span, sent through the protobuf exporter; answers its trace id. */
  const sendSpan = async (
    name: string,
    attributes: Record<string, string | number | boolean | string[]>,
    opts: { error?: string; durationMs?: number; events?: [string, Record<string, string | number>][] } = {},
  ) => {
    let traceId = '';
    await withExporter(p.t.baseUrl, auth(), 'protobuf', (tracer) => {
      const { span, end } = spanAt(tracer, name, attributes, T0, T0 + (opts.durationMs ?? 1000));
      for (const [event, attrs] of opts.events ?? []) span.addEvent(event, attrs, T0 + 10);
      if (opts.error) {
        span.recordException({ name: 'APIError', message: opts.error });
        span.setStatus({ code: SpanStatusCode.ERROR, message: opts.error });
      }
      traceId = span.spanContext().traceId;
      end();
    });
    return traceId;
  };
  const collector = (body: unknown) => p.t.request('POST', '/api/collector', { authToken: p.key, body });
  const price = (model: string, promptTokens: number, completionTokens: number, cached = 0, reasoning = 0) =>
    computeCost({ model, promptTokens, completionTokens, cachedInputTokens: cached, reasoningTokens: reasoning })!.amount;

  describe('1. LangWatch SDK metrics, input, output and params in every form the SDKs write', () => {
    it('TypeScript SDK: camelCase metrics inside a {type, value} wrapper', async () => {
      const traceId = await sendSpan('llm call', {
        'langwatch.span.type': 'llm',
        'gen_ai.request.model': 'gpt-4o-mini',
        'langwatch.input': JSON.stringify({ type: 'chat_messages', value: [{ role: 'user', content: 'Say hi' }] }),
        'langwatch.output': JSON.stringify({ type: 'text', value: 'Hello there' }),
        'langwatch.metrics': JSON.stringify({ type: 'json', value: { promptTokens: 11, completionTokens: 7 } }),
        'langwatch.params': JSON.stringify({ type: 'json', value: { temperature: 0.3 } }),
      });
      const d = await detail(traceId);
      const span = d.spans[0];
      expect(span.metrics).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, tokens_estimated: false });
      expect(span.metrics.cost).toBeCloseTo(price('gpt-4o-mini', 11, 7), 12);
      expect(span.params).toMatchObject({ temperature: 0.3 });
      expect(span.attributes['langwatch.metrics']).toBeUndefined();
      expect(d.metrics).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, tokens_estimated: false });
    });

    it('Python SDK: snake_case metrics and params as bare JSON, cost as sent; list outputs unwrapped', async () => {
      const traceId = await sendSpan('llm call', {
        'langwatch.span.type': 'llm',
        'gen_ai.request.model': 'openai/gpt-4o-mini',
        'langwatch.input': JSON.stringify({ type: 'text', value: 'Say hi' }),
        'langwatch.output': JSON.stringify({ type: 'list', value: [{ type: 'text', value: 'a' }, { type: 'json', value: { b: 1 } }] }),
        'langwatch.metrics': JSON.stringify({ prompt_tokens: 11, completion_tokens: 7, cached_prompt_tokens: 4, reasoning_tokens: 3, cost: 0.5 }),
        'langwatch.params': JSON.stringify({ temperature: 0, max_tokens: 64 }),
        'langwatch.timestamps': JSON.stringify({ type: 'json', value: { firstTokenAt: T0 + 120 } }),
      });
      const span = (await detail(traceId)).spans[0];
      expect(span.metrics).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, cached_input_tokens: 4, reasoning_tokens: 3, cost: 0.5 });
      expect(span.params).toMatchObject({ temperature: 0, max_tokens: 64 });
      expect(span.output).toEqual({ type: 'json', value: ['a', { b: 1 }] });
      expect(span.timestamps.first_token_at).toBe(T0 + 120);
    });
  });

  describe('2. token estimates match what the provider bills', () => {
    // "The capital of France is Paris." is 7 tokens in both o200k and cl100k (checked below
    // with js-tiktoken's reference encoder); the OpenAI cookbook frames each prompt message
    // with 3 tokens plus its role, and primes the reply with 3 more.
    const answer = 'The capital of France is Paris.';
    const question = 'What is the capital of France?';
    for (const [model, encoding] of [
      ['gpt-4o-mini', 'o200k_base'],
      ['gpt-4', 'cl100k_base'],
    ] as const) {
      it(`${model} (${encoding}): framing on the prompt only, the answer counted as written`, async () => {
        const enc = getEncoding(encoding);
        expect(enc.encode(answer)).toHaveLength(7);
        const expectedPrompt = 3 + (3 + enc.encode('user').length + enc.encode(question).length);
        const traceId = `est-${model}`;
        expect(
          (
            await collector({
              trace_id: traceId,
              spans: [
                {
                  span_id: 's1',
                  type: 'llm',
                  model,
                  input: { type: 'chat_messages', value: [{ role: 'user', content: question }] },
                  output: { type: 'chat_messages', value: [{ role: 'assistant', content: answer }] },
                  timestamps: { started_at: T0, finished_at: T0 + 500 },
                },
              ],
            })
          ).status,
        ).toBe(200);
        const span = (await detail(traceId)).spans[0];
        expect(span.metrics).toMatchObject({ prompt_tokens: expectedPrompt, completion_tokens: 7, tokens_estimated: true });
        expect(span.metrics.cost).toBeCloseTo(price(model, expectedPrompt, 7), 12);
      });
    }
  });

  it('3. a failed call that reported no usage has no cost and no estimated tokens', async () => {
    // The AI SDK's provider-call span of a call answered 500: its prompt, no usage.
    const traceId = await sendSpan(
      'ai.generateText.doGenerate',
      {
        'ai.operationId': 'ai.generateText.doGenerate',
        'ai.model.provider': 'openai.chat',
        'ai.model.id': 'gpt-4o-mini',
        'ai.prompt.messages': JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'fail please' }] }]),
      },
      { error: 'boom' },
    );
    const d = await detail(traceId);
    const span = d.spans[0];
    expect(span).toMatchObject({ type: 'llm', model: 'gpt-4o-mini' });
    expect(span.input.value[0].content).toBe('fail please');
    expect(span.metrics).toMatchObject({ prompt_tokens: null, completion_tokens: null, cost: null, tokens_estimated: false });
    expect(span.error).toMatchObject({ has_error: true, message: 'boom' });
    expect(d.metrics).toMatchObject({ prompt_tokens: null, completion_tokens: null, total_cost: null, tokens_estimated: false });
  });

  it('4. OpenInference spans without llm.model_name keep the model of llm.invocation_parameters', async () => {
    // OpenInference (Python) sets llm.model_name from the response: an error span has none.
    const failed = await sendSpan(
      'ChatCompletion',
      {
        'openinference.span.kind': 'LLM',
        'llm.invocation_parameters': JSON.stringify({ model: 'gpt-4o-mini', temperature: 0.2 }),
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'fail please',
      },
      { error: 'Error code: 500' },
    );
    expect((await detail(failed)).spans[0]).toMatchObject({ type: 'llm', model: 'gpt-4o-mini', params: { temperature: 0.2 } });
    const priced = await sendSpan('ChatCompletion', {
      'openinference.span.kind': 'LLM',
      'llm.invocation_parameters': JSON.stringify({ model: 'gpt-4o-mini' }),
      'llm.token_count.prompt': 11,
      'llm.token_count.completion': 7,
    });
    const span = (await detail(priced)).spans[0];
    expect(span.model).toBe('gpt-4o-mini');
    expect(span.metrics.cost).toBeCloseTo(price('gpt-4o-mini', 11, 7), 12);
  });

  it('5. one model, two names: provider apart, the model filter and prices on the normalized name', async () => {
    const send = (traceId: string, model: string) =>
      collector({
        trace_id: traceId,
        spans: [
          {
            span_id: 's1',
            type: 'llm',
            model,
            metrics: { prompt_tokens: 11, completion_tokens: 7 },
            timestamps: { started_at: T0, finished_at: T0 + 100 },
          },
        ],
      });
    await send('model-prefixed', 'openai/gpt-4o-mini');
    await send('model-plain', 'gpt-4o-mini');
    await send('model-dated', 'gpt-4o-mini-2024-07-18');
    await send('model-other', 'gpt-4o');
    await send('model-finetune', 'ft:gpt-4o-mini:acme::abc123');
    const prefixed = (await detail('model-prefixed')).spans[0];
    expect(prefixed).toMatchObject({ model: 'openai/gpt-4o-mini', model_name: 'gpt-4o-mini', vendor: 'openai' });
    const family = price('gpt-4o-mini', 11, 7);
    for (const id of ['model-prefixed', 'model-plain', 'model-dated']) expect((await detail(id)).metrics.total_cost).toBeCloseTo(family, 12);

    const found = async (model: string | string[]) => {
      const res = await p.t.request('POST', '/api/trace/search', { token: p.key, body: { filters: { model }, pageSize: 100 } });
      expect(res.status).toBe(200);
      return res.body.traces.map((t: { trace_id: string }) => t.trace_id).filter((id: string) => id.startsWith('model-')).sort();
    };
    const all = ['model-dated', 'model-plain', 'model-prefixed'];
    expect(await found('gpt-4o-mini')).toEqual(all);
    expect(await found('openai/gpt-4o-mini')).toEqual(all);
    expect(await found('GPT-4o-mini')).toEqual(all);
    expect(await found('gpt-4o-mini-2024-07-18')).toEqual(['model-dated']);
    expect(await found(['gpt-4o', 'nothing'])).toEqual(['model-other']);
    // Fine-tunes are priced by no table entry, but found by their name.
    expect(await found('ft:gpt-4o-mini:acme::abc123')).toEqual(['model-finetune']);
    expect((await detail('model-finetune')).spans[0].model_name).toBe('ft:gpt-4o-mini:acme::abc123');
  });

  it('6. first-token time from the AI SDK 7 (seconds) and the other attributes in use', async () => {
    const ai7 = await sendSpan('chat gpt-4o-mini', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.client.operation.time_to_first_chunk': 0.25,
    });
    let d = await detail(ai7);
    expect(d.spans[0].timestamps.first_token_at).toBe(T0 + 250);
    expect(d.metrics.first_token_ms).toBe(250);
    expect(d.spans[0].attributes['gen_ai.client.operation.time_to_first_chunk']).toBeUndefined();

    const ai6 = await sendSpan('ai.streamText.doStream', {
      'ai.operationId': 'ai.streamText.doStream',
      'ai.model.id': 'gpt-4o-mini',
      'ai.stream.msToFirstChunk': 40,
    });
    expect((await detail(ai6)).metrics.first_token_ms).toBe(40);
    // OpenLLMetry's Bedrock instrumentation writes milliseconds under the seconds attribute.
    const bedrock = await sendSpan('bedrock.completion', { 'gen_ai.system': 'aws.bedrock', 'gen_ai.server.time_to_first_token': 300 });
    d = await detail(bedrock);
    expect(d.metrics.first_token_ms).toBe(300);
  });

  it('7. sharing a trace that has not arrived yet is kept, and works once its spans arrive', async () => {
    const traceId = hex(0x7a11, 32);
    const shared = await p.t.request('POST', `/api/trace/${traceId}/share`, { token: p.key });
    expect(shared.status).toBe(200);
    const token = shared.body.path.split('/')[2];
    const early = await p.t.request('GET', `/api/share/${token}`);
    expect(early.status).toBe(404);
    expect(early.body).toMatchObject({ error: 'trace_not_available_yet' });
    // The web app's page of it answers 404 until then (the app says "not available yet").
    const html = { headers: { accept: 'text/html' } };
    const earlyPage = await p.t.request('GET', shared.body.path, html);
    expect(earlyPage.status).toBe(404);
    expect(earlyPage.headers.get('content-type')).toContain('text/html');

    await collector({
      trace_id: traceId,
      spans: [{ span_id: 's1', type: 'llm', input: { type: 'text', value: 'late question' }, timestamps: { started_at: T0, finished_at: T0 + 1 } }],
    });
    const late = await p.t.request('GET', `/api/share/${token}`);
    expect(late.status).toBe(200);
    expect(late.body.trace_id).toBe(traceId);
    expect((await p.t.request('GET', shared.body.path, html)).status).toBe(200);

    // Unsharing works the same way, before the spans and after.
    const before = hex(0x7a12, 32);
    const path = (await p.t.request('POST', `/api/trace/${before}/share`, { token: p.key })).body.path;
    expect((await p.t.request('POST', `/api/trace/${before}/unshare`, { token: p.key })).status).toBe(200);
    await collector({ trace_id: before, spans: [{ span_id: 's1', timestamps: { started_at: T0, finished_at: T0 + 1 } }] });
    expect((await p.t.request('GET', path, html)).status).toBe(404);
    expect((await p.t.request('GET', `/api/share/${path.split('/')[2]}`)).body.error).toBe('share_not_found');
    // Another project's key cannot share or see this project's trace.
    const foreign = await p.t.request('POST', `/api/trace/${traceId}/share`, { token: p.other.projectToken });
    expect(foreign.status).toBe(200);
    expect(foreign.body.path).not.toBe(shared.body.path);
    expect((await p.t.request('GET', `/api/share/${foreign.body.path.split('/')[2]}`)).status).toBe(404);
  });
});
