/**
 * Semantic-convention families beyond the GenAI fixtures: the Vercel AI SDK (spans
 * produced by the real `ai` package with a mock model), OpenLLMetry / Traceloop
 * (attribute sets as openllmetry-js and the traceloop Python SDK write them:
 * packages/ai-semantic-conventions/src/SemanticAttributes.ts, the OpenAI
 * instrumentation's gen_ai.prompt.N / gen_ai.completion.N keys, the decorators'
 * {"args": [...], "kwargs": {...}} entity input), LangWatch attributes, trace
 * metadata, errors, first-token times and the span type rules.
 */
import { context, SpanStatusCode } from '@opentelemetry/api';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { decodeTraceRequest, type NormalizedSpan } from '../../src/modules/traces/ingest/index.ts';
import { AsyncLocalContextManager, memoryTracer, toOtlpProtobuf } from './ingest-helpers.ts';

type AttributeValue = string | number | boolean | string[] | number[] | boolean[];

/** Spans made with the OTel SDK from plain attribute maps, through the protobuf path. */
function ingest(
  defs: { name: string; attributes: Record<string, AttributeValue>; build?: (span: import('@opentelemetry/api').Span) => void }[],
  resource?: Record<string, string>,
): NormalizedSpan[] {
  const { tracer, spans } = memoryTracer(resource);
  for (const def of defs) {
    const span = tracer.startSpan(def.name, { attributes: def.attributes });
    def.build?.(span);
    span.end();
  }
  const result = decodeTraceRequest(toOtlpProtobuf(spans()), 'application/x-protobuf');
  expect(result.rejected.count).toBe(0);
  return result.spans;
}

function byName(spans: NormalizedSpan[], name: string): NormalizedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found, name).toHaveLength(1);
  return found[0];
}

describe('Vercel AI SDK (real `ai` package, mock model)', () => {
  beforeAll(() => {
    // What @opentelemetry/sdk-node would register: parents for startActiveSpan.
    context.setGlobalContextManager(new AsyncLocalContextManager());
  });

  const usage = (input: number, output: number) => ({
    inputTokens: { total: input, noCache: input - 4, cacheRead: 4, cacheWrite: 0 },
    outputTokens: { total: output, text: output - 1, reasoning: 1 },
  });

  it('maps generateText with a tool call: outer chain, one llm span per step, a tool span', async () => {
    const { tracer, spans } = memoryTracer();
    let step = 0;
    const model = new MockLanguageModelV3({
      provider: 'openai.chat',
      modelId: 'gpt-4o-mini',
      doGenerate: async () =>
        step++ === 0
          ? {
              content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: '{"city":"Paris"}' }],
              finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
              usage: usage(30, 10),
              warnings: [],
            }
          : {
              content: [{ type: 'text', text: 'It is sunny in Paris.' }],
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: usage(50, 8),
              warnings: [],
            },
    });
    const result = await generateText({
      model,
      system: 'You are terse.',
      prompt: 'Weather in Paris?',
      temperature: 0.3,
      maxOutputTokens: 100,
      tools: {
        weather: tool({
          description: 'Current weather',
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => ({ city, sky: 'sunny' }),
        }),
      },
      stopWhen: stepCountIs(3),
      experimental_telemetry: {
        isEnabled: true,
        tracer,
        functionId: 'weather-bot',
        metadata: { userId: 'user-42', threadId: 'thread-7', plan: 'pro' },
      },
    });
    expect(result.text).toBe('It is sunny in Paris.');

    const decoded = decodeTraceRequest(toOtlpProtobuf(spans()), 'application/x-protobuf');
    expect(decoded.rejected.count).toBe(0);
    const outer = byName(decoded.spans, 'ai.generateText');
    const steps = decoded.spans.filter((s) => s.name === 'ai.generateText.doGenerate');
    const toolSpan = byName(decoded.spans, 'ai.toolCall');
    expect(steps).toHaveLength(2);
    for (const s of [...steps, toolSpan]) expect(s.parent_id).toBe(outer.span_id);

    const trace_metadata = { user_id: 'user-42', thread_id: 'thread-7', extra: { plan: 'pro' } };
    expect(outer).toMatchObject({
      type: 'chain',
      model: 'gpt-4o-mini',
      vendor: 'openai',
      params: { temperature: 0.3, max_tokens: 100, max_retries: 2 },
      input: {
        type: 'chat_messages',
        value: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'Weather in Paris?' },
        ],
      },
      output: { type: 'chat_messages', value: [{ role: 'assistant', content: 'It is sunny in Paris.' }] },
      trace_metadata,
    });
    // The outer span sums its steps: not counted again, but still visible.
    expect(outer.metrics.prompt_tokens).toBeNull();
    expect(outer.attributes['ai.usage.inputTokens']).toBe(80);

    const call = { id: 'call-1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } };
    expect(steps[0]).toMatchObject({
      type: 'llm',
      model: 'gpt-4o-mini',
      vendor: 'openai',
      metrics: { prompt_tokens: 30, completion_tokens: 10, cached_input_tokens: 4, reasoning_tokens: 1 },
      output: { type: 'chat_messages', value: [{ role: 'assistant', content: null, tool_calls: [call] }] },
      trace_metadata,
    });
    expect(steps[1]).toMatchObject({
      type: 'llm',
      metrics: { prompt_tokens: 50, completion_tokens: 8 },
      input: {
        type: 'chat_messages',
        value: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', content: '{"city":"Paris","sky":"sunny"}', tool_call_id: 'call-1', name: 'weather' },
        ],
      },
      output: { type: 'chat_messages', value: [{ role: 'assistant', content: 'It is sunny in Paris.' }] },
    });
    // gen_ai.* duplicates of the ai.* values are consumed with them.
    expect(steps[1].attributes['gen_ai.system']).toBeUndefined();
    expect(steps[1].attributes['gen_ai.usage.input_tokens']).toBeUndefined();
    expect(steps[1].attributes['ai.response.finishReason']).toBe('stop');

    expect(toolSpan).toMatchObject({
      type: 'tool',
      input: { type: 'json', value: { city: 'Paris' } },
      output: { type: 'json', value: { city: 'Paris', sky: 'sunny' } },
      attributes: { 'ai.toolCall.name': 'weather', 'ai.toolCall.id': 'call-1' },
    });
  });

  it('maps streamText: first token time from msToFirstChunk', async () => {
    const { tracer, spans } = memoryTracer();
    const model = new MockLanguageModelV3({
      provider: 'anthropic.messages',
      modelId: 'claude-sonnet-4',
      doStream: async () => ({
        stream: convertArrayToReadableStream([
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Hel' },
          { type: 'text-delta', id: 't', delta: 'lo' },
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, usage: usage(12, 2) },
        ]),
      }),
    });
    const stream = streamText({ model, prompt: 'Hi', experimental_telemetry: { isEnabled: true, tracer } });
    expect(await stream.text).toBe('Hello');
    // The outer span ends when the SDK's stream flushes, just after the text settles.
    await vi.waitFor(() => expect(spans().some((s) => s.name === 'ai.streamText')).toBe(true));
    const decoded = decodeTraceRequest(toOtlpProtobuf(spans()), 'application/x-protobuf');
    const llm = byName(decoded.spans, 'ai.streamText.doStream');
    expect(llm).toMatchObject({
      type: 'llm',
      model: 'claude-sonnet-4',
      vendor: 'anthropic',
      metrics: { prompt_tokens: 12, completion_tokens: 2 },
      input: { type: 'chat_messages', value: [{ role: 'user', content: 'Hi' }] },
      output: { type: 'chat_messages', value: [{ role: 'assistant', content: 'Hello' }] },
    });
    expect(llm.first_token_at).not.toBeNull();
    expect(llm.first_token_at as number).toBeGreaterThanOrEqual(llm.started_at);
    expect(llm.first_token_at as number).toBeLessThanOrEqual(llm.finished_at);
    expect(byName(decoded.spans, 'ai.streamText').type).toBe('chain');
  });

  it('maps a failing call to an error with the exception message and stack', async () => {
    const { tracer, spans } = memoryTracer();
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new Error('rate limited by provider');
      },
    });
    await expect(
      generateText({ model, prompt: 'Hi', maxRetries: 0, experimental_telemetry: { isEnabled: true, tracer } }),
    ).rejects.toThrow('rate limited by provider');
    const decoded = decodeTraceRequest(toOtlpProtobuf(spans()), 'application/x-protobuf');
    const llm = byName(decoded.spans, 'ai.generateText.doGenerate');
    expect(llm.status).toEqual({ code: 'error', message: 'rate limited by provider' });
    expect(llm.error?.message).toBe('rate limited by provider');
    expect(llm.error?.stacktrace[0]).toBe('Error: rate limited by provider');
    expect(llm.error?.stacktrace.length).toBeGreaterThan(1);
    expect(byName(decoded.spans, 'ai.generateText').error?.has_error).toBe(true);
  });

  it('maps the older (v3/v4) attribute names', () => {
    const [span] = ingest([
      {
        name: 'ai.generateText.doGenerate',
        attributes: {
          'operation.name': 'ai.generateText.doGenerate',
          'ai.operationId': 'ai.generateText.doGenerate',
          'ai.model.provider': 'openai.chat',
          'ai.model.id': 'gpt-4-turbo',
          'ai.settings.maxTokens': 50,
          'ai.prompt.format': 'prompt',
          'ai.prompt.messages': '[{"role":"user","content":[{"type":"text","text":"Say hi"}]}]',
          'ai.result.text': 'Hi!',
          'ai.usage.promptTokens': 6,
          'ai.usage.completionTokens': 2,
          'ai.telemetry.metadata.user_id': 'u-1',
          'ai.telemetry.metadata.tags': ['a', 'b'],
        },
      },
    ]);
    expect(span).toMatchObject({
      type: 'llm',
      model: 'gpt-4-turbo',
      vendor: 'openai',
      params: { max_tokens: 50 },
      metrics: { prompt_tokens: 6, completion_tokens: 2 },
      input: { type: 'chat_messages', value: [{ role: 'user', content: 'Say hi' }] },
      output: { type: 'chat_messages', value: [{ role: 'assistant', content: 'Hi!' }] },
      trace_metadata: { user_id: 'u-1', labels: ['a', 'b'] },
      attributes: { 'ai.prompt.format': 'prompt' },
    });
  });
});

describe('OpenLLMetry / Traceloop', () => {
  it('maps workflow and task spans with their entity input and output', () => {
    const spans = ingest([
      {
        name: 'joke_generator.workflow',
        attributes: {
          'traceloop.span.kind': 'workflow',
          'traceloop.workflow.name': 'joke_generator',
          'traceloop.entity.name': 'joke_generator',
          'traceloop.entity.input': '{"args": ["OpenTelemetry"], "kwargs": {}}',
          'traceloop.entity.output': '"Why did the span cross the road?"',
          'traceloop.association.properties.user_id': 'user-7',
          'traceloop.association.properties.session_id': 'session-3',
          'traceloop.association.properties.tenant': 'acme',
        },
      },
      {
        name: 'translate.task',
        attributes: {
          'traceloop.span.kind': 'task',
          'traceloop.entity.input': '{"args": [], "kwargs": {"text": "hello", "target": "fr"}}',
          'traceloop.entity.output': '{"translation": "bonjour"}',
        },
      },
      {
        name: 'weather.tool',
        attributes: { 'traceloop.span.kind': 'tool', 'traceloop.entity.input': '{"args": [1, 2], "kwargs": {"unit": "c"}}' },
      },
    ]);
    expect(byName(spans, 'joke_generator.workflow')).toMatchObject({
      type: 'workflow',
      input: { type: 'text', value: 'OpenTelemetry' },
      output: { type: 'text', value: 'Why did the span cross the road?' },
      trace_metadata: { user_id: 'user-7', thread_id: 'session-3', extra: { tenant: 'acme' } },
      attributes: { 'traceloop.workflow.name': 'joke_generator', 'traceloop.entity.name': 'joke_generator' },
    });
    expect(byName(spans, 'translate.task')).toMatchObject({
      type: 'task',
      input: { type: 'json', value: { text: 'hello', target: 'fr' } },
      output: { type: 'json', value: { translation: 'bonjour' } },
    });
    expect(byName(spans, 'weather.tool')).toMatchObject({
      type: 'tool',
      input: { type: 'json', value: { args: [1, 2], kwargs: { unit: 'c' } } },
    });
  });

  it('maps an instrumented OpenAI chat call with indexed prompts and completions', () => {
    const [span] = ingest([
      {
        name: 'openai.chat',
        attributes: {
          'llm.request.type': 'chat',
          'gen_ai.system': 'OpenAI',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
          'gen_ai.request.temperature': 0.2,
          'gen_ai.request.max_tokens': 300,
          'llm.is_streaming': false,
          'llm.frequency_penalty': 0.5,
          'gen_ai.prompt.0.role': 'system',
          'gen_ai.prompt.0.content': 'You are a weather bot.',
          'gen_ai.prompt.1.role': 'user',
          'gen_ai.prompt.1.content':
            '[{"type":"text","text":"What is in this image?"},{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]',
          'gen_ai.completion.0.role': 'assistant',
          'gen_ai.completion.0.finish_reason': 'tool_calls',
          'gen_ai.completion.0.tool_calls.0.name': 'get_weather',
          'gen_ai.completion.0.tool_calls.0.arguments': '{"city":"Lyon"}',
          'gen_ai.usage.prompt_tokens': 25,
          'gen_ai.usage.completion_tokens': 9,
          'gen_ai.usage.cache_read_input_tokens': 0,
          'llm.usage.total_tokens': 34,
        },
      },
    ]);
    expect(span).toMatchObject({
      type: 'llm',
      model: 'gpt-4o-mini-2024-07-18',
      vendor: 'openai',
      params: { temperature: 0.2, max_tokens: 300, stream: false, frequency_penalty: 0.5 },
      metrics: { prompt_tokens: 25, completion_tokens: 9, cached_input_tokens: 0, reasoning_tokens: null },
    });
    expect(span.input).toEqual({
      type: 'chat_messages',
      value: [
        { role: 'system', content: 'You are a weather bot.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this image?' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
      ],
    });
    expect(span.output).toEqual({
      type: 'chat_messages',
      value: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lyon"}' } }],
        },
      ],
    });
    expect(span.attributes).toEqual({ 'llm.request.type': 'chat', 'gen_ai.request.model': 'gpt-4o-mini' });
  });
});

describe('LangWatch attributes and trace metadata', () => {
  it('maps explicit type, typed input/output, params, metrics and ids', () => {
    const spans = ingest(
      [
        {
          name: 'answer',
          attributes: {
            'langwatch.span.type': 'llm',
            'langwatch.input': '{"type":"chat_messages","value":[{"role":"user","content":"hi"}]}',
            'langwatch.output': '{"type":"text","value":"hello there"}',
            'langwatch.params': '{"temperature":0,"stream":true}',
            'langwatch.metrics': '{"prompt_tokens":3,"completion_tokens":2,"cost":0.0001}',
            'langwatch.timestamps': '{"first_token_at":1735689600500}',
            'langwatch.user.id': 'user-1',
            'langwatch.thread.id': 'thread-1',
            'langwatch.customer.id': 'customer-1',
            'langwatch.labels': '["prod","v2"]',
            'langwatch.metadata.region': 'eu',
            metadata: '{"user_id":"ignored-second-user","experiment":"b"}',
            'langwatch.sdk.name': 'langwatch-node',
            'langwatch.sdk.version': '0.5.0',
            'langwatch.sdk.language': 'typescript',
            'gen_ai.request.model': 'gpt-4o',
          },
        },
        { name: 'retrieve', attributes: { 'langwatch.span.type': 'rag', 'langwatch.input': '"what is otlp"' } },
      ],
      { 'service.name': 'svc', 'telemetry.sdk.name': 'opentelemetry', 'telemetry.sdk.language': 'nodejs', 'telemetry.sdk.version': '2.0.0' },
    );
    const answer = byName(spans, 'answer');
    expect(answer).toMatchObject({
      type: 'llm',
      model: 'gpt-4o',
      input: { type: 'chat_messages', value: [{ role: 'user', content: 'hi' }] },
      output: { type: 'text', value: 'hello there' },
      params: { temperature: 0, stream: true },
      metrics: { prompt_tokens: 3, completion_tokens: 2, cost: 0.0001 },
      first_token_at: 1735689600500,
      trace_metadata: {
        user_id: 'user-1',
        thread_id: 'thread-1',
        customer_id: 'customer-1',
        labels: ['prod', 'v2'],
        extra: { user_id: 'ignored-second-user', experiment: 'b', region: 'eu' },
        sdk_name: 'langwatch-node',
        sdk_version: '0.5.0',
        sdk_language: 'typescript',
      },
    });
    expect(answer.attributes).toEqual({});
    const retrieve = byName(spans, 'retrieve');
    expect(retrieve).toMatchObject({ type: 'rag', input: { type: 'text', value: 'what is otlp' } });
    expect(retrieve.trace_metadata).toEqual({ sdk_name: 'opentelemetry', sdk_version: '2.0.0', sdk_language: 'nodejs' });
  });

  it('reads user, thread and label conventions from other SDKs', () => {
    const spans = ingest([
      { name: 'a', attributes: { 'user.id': 'u', 'gen_ai.conversation.id': 'c', 'tag.tags': ['x', 'y'] } },
      { name: 'b', attributes: { 'session.id': 's', 'enduser.id': 'e' } },
    ]);
    expect(byName(spans, 'a').trace_metadata).toMatchObject({ user_id: 'u', thread_id: 'c', labels: ['x', 'y'] });
    expect(byName(spans, 'b').trace_metadata).toMatchObject({ user_id: 'e', thread_id: 's' });
    expect(byName(spans, 'a').attributes).toEqual({});
  });
});

describe('GenAI message attribute variants', () => {
  it('accepts gen_ai.input.messages as a string array of JSON messages', () => {
    const [span] = ingest([
      {
        name: 'chat',
        attributes: {
          'gen_ai.request.model': 'm',
          'gen_ai.input.messages': ['{"role":"system","content":"Be brief."}', '{"role":"user","parts":[{"type":"text","content":"Hi"}]}'],
          'gen_ai.output.messages': '[{"role":"assistant","content":"Hello","tool_calls":[]}]',
        },
      },
    ]);
    expect(span.input?.value).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(span.output?.value).toEqual([{ role: 'assistant', content: 'Hello' }]);
    expect(span.type).toBe('llm');
  });
});

describe('errors and first token', () => {
  it('maps status ERROR, exception events and error.type', () => {
    const spans = ingest([
      {
        name: 'status only',
        attributes: {},
        build: (s) => s.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream 502' }),
      },
      {
        name: 'exception only',
        attributes: {},
        build: (s) =>
          s.addEvent('exception', {
            'exception.type': 'ValueError',
            'exception.message': 'bad input',
            'exception.stacktrace': 'Traceback (most recent call last):\n  File "app.py", line 3\nValueError: bad input\n',
          }),
      },
      {
        name: 'error type only',
        attributes: { 'error.type': 'timeout' },
        build: (s) => s.setStatus({ code: SpanStatusCode.ERROR }),
      },
      { name: 'fine', attributes: {}, build: (s) => s.setStatus({ code: SpanStatusCode.OK }) },
    ]);
    expect(byName(spans, 'status only').error).toEqual({ has_error: true, message: 'upstream 502', stacktrace: [] });
    expect(byName(spans, 'exception only').error).toEqual({
      has_error: true,
      message: 'ValueError: bad input',
      stacktrace: ['Traceback (most recent call last):', '  File "app.py", line 3', 'ValueError: bad input'],
    });
    expect(byName(spans, 'error type only').error?.message).toBe('timeout');
    expect(byName(spans, 'fine').error).toBeNull();
  });

  it('takes the first token time from events or a duration attribute', () => {
    const { tracer, spans } = memoryTracer();
    const a = tracer.startSpan('event', { startTime: [1735689600, 0] });
    a.addEvent('gen_ai.content.first_token', {}, [1735689600, 250000000]);
    a.end([1735689601, 0]);
    const b = tracer.startSpan('attribute', {
      startTime: [1735689600, 0],
      attributes: { 'gen_ai.response.time_to_first_chunk': 0.125 },
    });
    b.end([1735689601, 0]);
    const c = tracer.startSpan('First Token Stream Event', { startTime: [1735689600, 0] });
    c.addEvent('First Token Stream Event', {}, [1735689600, 300000000]);
    c.end([1735689601, 0]);
    const decoded = decodeTraceRequest(toOtlpProtobuf(spans()), 'application/x-protobuf').spans;
    expect(byName(decoded, 'event').first_token_at).toBe(1735689600250);
    expect(byName(decoded, 'attribute').first_token_at).toBe(1735689600125);
    expect(byName(decoded, 'First Token Stream Event').first_token_at).toBe(1735689600300);
  });
});

describe('span type rules and leftover attributes', () => {
  it('types spans by convention, then by model usage, then by kind', () => {
    const { tracer, spans } = memoryTracer();
    const make = (name: string, kind: number, attributes: Record<string, AttributeValue>) =>
      tracer.startSpan(name, { kind, attributes }).end();
    make('agent', 0, {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': 900,
      'gen_ai.usage.output_tokens': 90,
    });
    make('embed', 2, { 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small', 'gen_ai.usage.input_tokens': 7 });
    make('model with messages', 0, { 'gen_ai.request.model': 'm', 'gen_ai.input.messages': '[{"role":"user","content":"x"}]' });
    make('model alone', 0, { 'gen_ai.request.model': 'm' });
    make('publish', 3, {});
    make('plain', 0, {});
    const decoded = decodeTraceRequest(toOtlpProtobuf(spans()), 'application/x-protobuf').spans;
    const agent = byName(decoded, 'agent');
    expect(agent.type).toBe('agent');
    expect(agent.metrics.prompt_tokens).toBeNull();
    expect(agent.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 900, 'gen_ai.usage.output_tokens': 90 });
    expect(byName(decoded, 'embed')).toMatchObject({ type: 'embedding', metrics: { prompt_tokens: 7 } });
    expect(byName(decoded, 'model with messages').type).toBe('llm');
    expect(byName(decoded, 'model alone').type).toBe('span');
    expect(byName(decoded, 'publish').type).toBe('producer');
    expect(byName(decoded, 'plain').type).toBe('span');
  });

  it('keeps every attribute it does not map, decoded but not reinterpreted', () => {
    const body = Buffer.from(
      JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: '0af7651916cd43dd8448eb211c80319c',
                    spanId: 'b7ad6b7169203331',
                    name: 'keep',
                    startTimeUnixNano: '1735689600000000000',
                    endTimeUnixNano: '1735689600000000000',
                    attributes: [
                      { key: 'http.route', value: { stringValue: '/chat' } },
                      { key: 'payload', value: { stringValue: '{"a": 1}' } },
                      { key: '__proto__', value: { kvlistValue: { values: [{ key: 'polluted', value: { boolValue: true } }] } } },
                      { key: 'nested', value: { kvlistValue: { values: [{ key: '__proto__', value: { intValue: '1' } }] } } },
                      { key: 'llm.input_messages.0.__proto__.role', value: { stringValue: 'user' } },
                      { key: 'gen_ai.operation.name', value: { stringValue: 'constructor' } },
                      { key: 'gen_ai.request.__proto__', value: { stringValue: 'x' } },
                      { key: 'metadata', value: { stringValue: '{"__proto__": {"polluted": true}, "toString": 1}' } },
                    ],
                    events: [{ name: 'constructor', timeUnixNano: '1735689600000000000', attributes: [] }],
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    const [span] = decodeTraceRequest(body, 'application/json').spans;
    expect(span.attributes['http.route']).toBe('/chat');
    expect(span.attributes.payload).toBe('{"a": 1}');
    expect(Object.keys(span.attributes)).toContain('__proto__');
    expect(Object.getPrototypeOf(span.attributes)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(span.attributes.nested)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Sender-chosen names never resolve to inherited members of a lookup table.
    expect(span.type).toBe('span');
    expect(Object.getPrototypeOf(span.params)).toBe(Object.prototype);
    expect(Object.keys(span.params)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(span.trace_metadata.extra)).toBe(Object.prototype);
    expect(Object.keys(span.trace_metadata.extra ?? {})).toEqual(['__proto__', 'toString']);
  });
});
