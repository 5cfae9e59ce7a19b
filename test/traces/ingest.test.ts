/**
 * OTLP trace ingest: decoding (protobuf and JSON), validation and the OpenTelemetry
 * GenAI / OpenInference mappings, checked against public fixtures.
 *
 * Fixtures (test/fixtures/otel, see its README): open-telemetry/semantic-conventions
 * GenAI examples and Arize-ai/openinference GenAI fixtures (Apache-2.0), with
 * expected_span_summary.json derived from them; open-telemetry/opentelemetry-proto
 * examples (Apache-2.0).
 */
import { SpanKind, SpanStatusCode, trace, ROOT_CONTEXT } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { describe, expect, it } from 'vitest';
import {
  decodeTraceRequest,
  decodeTraceRequestInTurns,
  encodeExportTraceResponse,
  MAX_ATTRIBUTES_PER_SPAN,
  MAX_REJECTION_MESSAGES,
  OtlpDecodeError,
  otlpFormat,
  type DecodeResult,
  type NormalizedSpan,
} from '../../src/modules/traces/ingest/index.ts';
import {
  fixtureBuffer,
  fixtureJson,
  memoryTracer,
  otlpJsonToProtobuf,
  toOtlpJson,
  toOtlpProtobuf,
} from './ingest-helpers.ts';

interface ExpectedSpan {
  file: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  duration_ms: number;
  operation: string | null;
  provider: string | null;
  request_model: string | null;
  response_model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  total_tokens: number | null;
  finish_reasons: string[] | null;
  has_input_messages: boolean;
  has_output_messages: boolean;
  tool_name: string | null;
  tool_call_id: string | null;
}

const JSON_TYPE = 'application/json';
const PROTOBUF_TYPE = 'application/x-protobuf';

function decodeFixture(file: string, format: 'json' | 'protobuf'): DecodeResult {
  return format === 'json'
    ? decodeTraceRequest(fixtureBuffer(file), JSON_TYPE)
    : decodeTraceRequest(otlpJsonToProtobuf(fixtureJson(file)), PROTOBUF_TYPE);
}

function only(result: DecodeResult, spanId: string): NormalizedSpan {
  const matches = result.spans.filter((s) => s.span_id === spanId);
  expect(matches, `span ${spanId}`).toHaveLength(1);
  return matches[0];
}

function otlpJson(spans: Record<string, unknown>[], resource: Record<string, unknown>[] = []): Buffer {
  return Buffer.from(
    JSON.stringify({ resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: { name: 't' }, spans }] }] }),
  );
}

let idCounter = 0;
function jsonSpan(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  idCounter++;
  return {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: idCounter.toString(16).padStart(16, '0'),
    name: `span ${idCounter}`,
    kind: 1,
    startTimeUnixNano: '1735689600000000000',
    endTimeUnixNano: '1735689601000000000',
    attributes: [],
    ...overrides,
  };
}

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const int = (key: string, value: number) => ({ key, value: { intValue: String(value) } });

describe('GenAI semantic-convention and OpenInference fixtures match expected_span_summary.json', () => {
  const expected = fixtureJson<{ spans: ExpectedSpan[] }>('expected_span_summary.json').spans;
  const files = [...new Set(expected.map((e) => e.file))];

  describe.each(['json', 'protobuf'] as const)('%s', (format) => {
    it.each(files)('%s', (file) => {
      const result = decodeFixture(file, format);
      expect(result.rejected).toEqual({ count: 0, messages: [] });
      for (const e of expected.filter((x) => x.file === file)) {
        const span = only(result, e.spanId);
        const label = `${file} ${e.spanId}`;
        expect(span.trace_id, label).toBe(e.traceId);
        expect(span.parent_id, label).toBe(e.parentSpanId);
        expect(span.name, label).toBe(e.name);
        expect(span.finished_at - span.started_at, label).toBeCloseTo(e.duration_ms, 6);
        expect(span.model, label).toBe(e.response_model ?? e.request_model);
        expect(span.vendor, label).toBe(e.provider);
        expect(span.metrics.prompt_tokens, label).toBe(e.input_tokens);
        expect(span.metrics.completion_tokens, label).toBe(e.output_tokens);
        expect(span.type, label).toBe(e.operation === 'execute_tool' ? 'tool' : 'llm');
        if (e.has_input_messages) {
          expect(span.input?.type, label).toBe('chat_messages');
          expect((span.input?.value as unknown[]).length, label).toBeGreaterThan(0);
        } else {
          expect(span.input, label).toBeNull();
        }
        if (e.has_output_messages) {
          expect(span.output?.type, label).toBe('chat_messages');
          expect((span.output?.value as unknown[]).length, label).toBeGreaterThan(0);
        } else {
          expect(span.output, label).toBeNull();
        }
        // Facts without a NormalizedSpan field stay as attributes.
        if (e.finish_reasons) expect(span.attributes['gen_ai.response.finish_reasons'], label).toEqual(e.finish_reasons);
        if (e.tool_name) expect(span.attributes['gen_ai.tool.name'], label).toBe(e.tool_name);
        if (e.tool_call_id) expect(span.attributes['gen_ai.tool.call.id'], label).toBe(e.tool_call_id);
        if (e.request_model && e.response_model && e.request_model !== e.response_model) {
          expect(span.attributes['gen_ai.request.model'], label).toBe(e.request_model);
        }
        // Consumed attributes are not kept twice.
        expect(span.attributes['gen_ai.usage.input_tokens'], label).toBeUndefined();
        expect(span.attributes['gen_ai.input.messages'], label).toBeUndefined();
      }
    });

    it.each(files)('%s decodes to the same spans as the other format', (file) => {
      const other = format === 'json' ? 'protobuf' : 'json';
      expect(decodeFixture(file, format)).toEqual(decodeFixture(file, other));
    });
  });
});

describe('GenAI message content', () => {
  it('maps text parts to plain string content (semconv 01)', () => {
    const span = only(decodeFixture('semconv_01_simple_chat_completion_content_enabled_span_attrs.traces.json', 'json'), '00f067aa0ba902b7');
    expect(span.input).toEqual({
      type: 'chat_messages',
      value: [
        { role: 'system', content: 'You are a helpful bot' },
        { role: 'user', content: 'Tell me a joke about OpenTelemetry' },
      ],
    });
    expect(span.output).toEqual({
      type: 'chat_messages',
      value: [
        {
          role: 'assistant',
          content: ' Why did the developer bring OpenTelemetry to the party? Because it always knows how to trace the fun!',
        },
      ],
    });
    expect(span.params).toEqual({ max_tokens: 200, top_p: 1 });
    expect(span.kind).toBe('client');
    expect(span.scope).toEqual({ name: 'semconv.genai.examples', version: 'example' });
    expect(span.resource).toEqual({ 'service.name': 'genai-semconv-example' });
    expect(span.status).toEqual({ code: 'unset', message: null });
    expect(span.error).toBeNull();
    expect(span.started_at).toBe(1735689610100);
    expect(span.finished_at).toBe(1735689611300);
  });

  it('keeps tool calls and turns tool responses into tool messages (semconv 04)', () => {
    const result = decodeFixture('semconv_04_tool_calls_functions_content_enabled_span_attrs.traces.json', 'json');
    const call = {
      id: 'call_VSPygqKTWdrhaFErNvMV18Yl',
      type: 'function',
      function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
    };
    expect(only(result, '8ef7f13ef7bad066').output).toEqual({
      type: 'chat_messages',
      value: [{ role: 'assistant', content: null, tool_calls: [call] }],
    });
    expect(only(result, '3d1342ba7e9d31eb').input).toEqual({
      type: 'chat_messages',
      value: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', content: 'rainy, 57°F', tool_call_id: 'call_VSPygqKTWdrhaFErNvMV18Yl' },
      ],
    });
    // The parent is a plain application span.
    const root = only(result, '1096cc50e8940ec4');
    expect(root.type).toBe('span');
    expect(root.parent_id).toBeNull();
    expect(root.input).toBeNull();
    // Tool definitions have no field of their own: kept verbatim.
    expect(typeof only(result, '8ef7f13ef7bad066').attributes['gen_ai.tool.definitions']).toBe('string');
  });

  it('puts system instructions first in the input (semconv 05)', () => {
    const span = only(
      decodeFixture('semconv_05_system_instructions_along_with_chat_history_content_enabled.traces.json', 'json'),
      'bf37c27c246953c5',
    );
    expect(span.input?.value).toEqual([
      { role: 'system', content: 'You must never tell jokes' },
      { role: 'system', content: 'You are a helpful bot' },
      { role: 'user', content: 'Tell me a joke about OpenTelemetry' },
    ]);
    expect(span.attributes['gen_ai.system_instructions']).toBeUndefined();
  });

  it('keeps reasoning as an ordered content part next to the text (semconv 06)', () => {
    const span = only(decodeFixture('semconv_06_chat_completion_with_reasoning_content_enabled.traces.json', 'json'), '00f067aa0ba902b7');
    const [message] = span.output?.value as { role: string; content: { type: string; text?: string; content?: string }[] }[];
    expect(message.role).toBe('assistant');
    expect(message.content.map((p) => p.type)).toEqual(['reasoning', 'text']);
    expect(message.content[0].content).toMatch(/^Alright, the user wants a joke/);
    expect(message.content[1].text).toBe(' Why did the developer bring OpenTelemetry to the party? Because it always knows how to trace the fun!');
  });

  it('keeps server-side tool calls verbatim (semconv 07)', () => {
    const span = only(decodeFixture('semconv_07_tool_calls_built_in.traces.json', 'json'), 'ea8d906c068f22af');
    const [message] = span.output?.value as { content: { type: string }[] }[];
    expect(message.content.map((p) => p.type)).toEqual(['server_tool_call', 'server_tool_call_response', 'text']);
  });

  it('gives each choice its own output message (semconv 08)', () => {
    const span = only(
      decodeFixture('semconv_08_chat_completion_with_multiple_choices_content_enabled_span_attrs.traces.json', 'json'),
      'd3c20ebdf0911551',
    );
    expect((span.output?.value as { content: string }[]).map((m) => m.content)).toEqual([
      ' Why did the developer bring OpenTelemetry to the party? Because it always knows how to trace the fun!',
      ' Why did OpenTelemetry get promoted? It had great span of control!',
    ]);
  });

  it('reads the older gen_ai.prompt / gen_ai.completion attributes (openinference fixture)', () => {
    const result = decodeFixture('openinference_genai_fixtures.traces.json', 'json');
    const current = only(result, 'bf3680c6ccbf4827');
    const older = only(result, '7504c0613f9fbfc6');
    expect(older.input).toEqual(current.input);
    expect(older.output).toEqual({
      type: 'chat_messages',
      value: [{ role: 'assistant', content: 'The weather in Paris is currently rainy with a temperature of 57°F.' }],
    });
    expect(older.attributes['gen_ai.prompt']).toBeUndefined();
    expect(older.params).toEqual({ max_tokens: 200, temperature: 0.5, top_p: 0.9 });
    expect(older.status).toEqual({ code: 'ok', message: null });
  });
});

describe('GenAI event form', () => {
  it('reads messages from a gen_ai.client.inference.operation.details event (semconv 02)', () => {
    // The fixture ships the event as a log record of the span; attached to the span
    // as a span event it must give the same messages as the attribute form.
    const doc = fixtureJson<{ resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[] }>(
      'semconv_02_simple_chat_completion_content_enabled_event_attrs.traces.json',
    );
    const logs = fixtureJson<{ resourceLogs: { scopeLogs: { logRecords: Record<string, unknown>[] }[] }[] }>(
      'semconv_02_simple_chat_completion_content_enabled_event_attrs.logs.json',
    );
    const record = logs.resourceLogs[0].scopeLogs[0].logRecords[0];
    const span = doc.resourceSpans[0].scopeSpans[0].spans[0];
    span.events = [{ name: record.eventName, timeUnixNano: record.timeUnixNano, attributes: record.attributes }];

    const withEvent = only(decodeTraceRequest(Buffer.from(JSON.stringify(doc)), JSON_TYPE), '00f067aa0ba902b7');
    const withAttributes = only(
      decodeFixture('semconv_01_simple_chat_completion_content_enabled_span_attrs.traces.json', 'json'),
      '00f067aa0ba902b7',
    );
    expect(withEvent.input).toEqual(withAttributes.input);
    expect(withEvent.output).toEqual(withAttributes.output);
    expect(withEvent.type).toBe('llm');
    expect(withEvent.events.map((e) => e.name)).toEqual(['gen_ai.client.inference.operation.details']);
  });

  it('reads gen_ai.*.message and gen_ai.choice span events and drops them once mapped', () => {
    const body = otlpJson([
      jsonSpan({
        spanId: 'aaaaaaaaaaaaaaa1',
        attributes: [str('gen_ai.system', 'openai'), str('gen_ai.request.model', 'gpt-4o'), int('gen_ai.usage.input_tokens', 9)],
        events: [
          { name: 'gen_ai.system.message', timeUnixNano: '1735689600100000000', attributes: [str('content', 'Be brief.')] },
          {
            name: 'gen_ai.user.message',
            timeUnixNano: '1735689600100000000',
            attributes: [str('gen_ai.event.content', '{"content":"Weather in Paris?"}')],
          },
          {
            name: 'gen_ai.assistant.message',
            timeUnixNano: '1735689600100000000',
            attributes: [
              str(
                'tool_calls',
                '[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]',
              ),
            ],
          },
          {
            name: 'gen_ai.tool.message',
            timeUnixNano: '1735689600100000000',
            attributes: [str('id', 'call_1'), str('content', 'rainy')],
          },
          {
            name: 'gen_ai.choice',
            timeUnixNano: '1735689600900000000',
            attributes: [
              int('index', 0),
              str('finish_reason', 'stop'),
              { key: 'message', value: { kvlistValue: { values: [str('content', 'Rainy, 57°F.')] } } },
            ],
          },
          { name: 'note', timeUnixNano: '1735689600500000000', attributes: [] },
        ],
      }),
    ]);
    const span = only(decodeTraceRequest(body, JSON_TYPE), 'aaaaaaaaaaaaaaa1');
    expect(span.input).toEqual({
      type: 'chat_messages',
      value: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', content: 'rainy', tool_call_id: 'call_1' },
      ],
    });
    expect(span.output).toEqual({ type: 'chat_messages', value: [{ role: 'assistant', content: 'Rainy, 57°F.' }] });
    expect(span.events.map((e) => e.name)).toEqual(['note']);
    expect(span.type).toBe('llm');
  });
});

describe('OpenInference', () => {
  const attrs = (entries: Record<string, string | number | boolean>) =>
    Object.entries(entries).map(([key, v]) =>
      typeof v === 'string'
        ? str(key, v)
        : typeof v === 'boolean'
          ? { key, value: { boolValue: v } }
          : Number.isInteger(v)
            ? int(key, v)
            : { key, value: { doubleValue: v } },
    );

  it('maps an LLM span: kind, model, provider, parameters, tokens and indexed messages', () => {
    const body = otlpJson([
      jsonSpan({
        spanId: 'b000000000000001',
        name: 'ChatOpenAI',
        attributes: attrs({
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-4o-2024-08-06',
          'llm.provider': 'openai',
          'llm.system': 'openai',
          'llm.invocation_parameters': '{"temperature": 0.1, "max_tokens": 256, "stream": true}',
          'llm.token_count.prompt': 120,
          'llm.token_count.completion': 30,
          'llm.token_count.total': 150,
          'llm.token_count.prompt_details.cache_read': 64,
          'llm.token_count.completion_details.reasoning': 12,
          'llm.input_messages.0.message.role': 'system',
          'llm.input_messages.0.message.content': 'You answer weather questions.',
          'llm.input_messages.1.message.role': 'user',
          'llm.input_messages.1.message.contents.0.message_content.type': 'text',
          'llm.input_messages.1.message.contents.0.message_content.text': 'And this picture?',
          'llm.input_messages.1.message.contents.1.message_content.type': 'image',
          'llm.input_messages.1.message.contents.1.message_content.image.image.url': 'https://example.com/sky.png',
          'llm.input_messages.10.message.role': 'tool',
          'llm.input_messages.10.message.content': 'sunny',
          'llm.input_messages.10.message.tool_call_id': 'call_9',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_10',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'get_weather',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"city": "Oslo"}',
          'input.value': '{"messages": []}',
          'input.mime_type': 'application/json',
          'session.id': 'session-1',
          'user.id': 'user-1',
          'tag.tags': '["beta", "weather"]',
          metadata: '{"tenant": "acme", "customer_id": "cust-9"}',
        }),
      }),
    ]);
    const span = only(decodeTraceRequest(body, JSON_TYPE), 'b000000000000001');
    expect(span.type).toBe('llm');
    expect(span.model).toBe('gpt-4o-2024-08-06');
    expect(span.vendor).toBe('openai');
    expect(span.params).toEqual({ temperature: 0.1, max_tokens: 256, stream: true });
    expect(span.metrics).toMatchObject({
      prompt_tokens: 120,
      completion_tokens: 30,
      cached_input_tokens: 64,
      reasoning_tokens: 12,
    });
    expect(span.input).toEqual({
      type: 'chat_messages',
      value: [
        { role: 'system', content: 'You answer weather questions.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'And this picture?' },
            { type: 'image_url', image_url: { url: 'https://example.com/sky.png' } },
          ],
        },
        // Index 10 sorts after 1, numerically.
        { role: 'tool', content: 'sunny', tool_call_id: 'call_9' },
      ],
    });
    expect(span.output).toEqual({
      type: 'chat_messages',
      value: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_10', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Oslo"}' } }],
        },
      ],
    });
    expect(span.trace_metadata).toMatchObject({
      thread_id: 'session-1',
      user_id: 'user-1',
      customer_id: 'cust-9',
      labels: ['beta', 'weather'],
      extra: { tenant: 'acme' },
    });
    // The raw request body lost to the messages stays available; mapped keys are gone.
    expect(span.attributes).toEqual({ 'input.value': '{"messages": []}', 'input.mime_type': 'application/json' });
  });

  it('maps CHAIN, TOOL, RETRIEVER and EMBEDDING spans', () => {
    const body = otlpJson([
      jsonSpan({
        spanId: 'b000000000000002',
        attributes: attrs({
          'openinference.span.kind': 'CHAIN',
          'input.value': '{"question": "What is OTLP?"}',
          'input.mime_type': 'application/json',
          'output.value': 'OTLP is the OpenTelemetry protocol.',
          'output.mime_type': 'text/plain',
        }),
      }),
      jsonSpan({
        spanId: 'b000000000000003',
        attributes: attrs({ 'openinference.span.kind': 'TOOL', 'tool.name': 'search', 'input.value': 'otlp spec' }),
      }),
      jsonSpan({
        spanId: 'b000000000000004',
        attributes: attrs({
          'openinference.span.kind': 'RETRIEVER',
          'input.value': 'what is otlp',
          'retrieval.documents.0.document.id': 'doc-1',
          'retrieval.documents.0.document.content': 'OTLP is a protocol.',
          'retrieval.documents.0.document.score': 0.91,
          'retrieval.documents.0.document.metadata': '{"source": "spec.md"}',
          'retrieval.documents.1.document.id': 'doc-2',
          'retrieval.documents.1.document.content': 'Collectors receive OTLP.',
        }),
      }),
      jsonSpan({
        spanId: 'b000000000000005',
        attributes: attrs({
          'openinference.span.kind': 'EMBEDDING',
          'embedding.model_name': 'text-embedding-3-small',
          'llm.token_count.prompt': 8,
        }),
      }),
      jsonSpan({
        spanId: 'b000000000000006',
        attributes: attrs({
          'openinference.span.kind': 'AGENT',
          'llm.model_name': 'gpt-4o',
          'llm.token_count.prompt': 500,
          'llm.token_count.completion': 50,
        }),
      }),
    ]);
    const result = decodeTraceRequest(body, JSON_TYPE);
    const chain = only(result, 'b000000000000002');
    expect(chain.type).toBe('chain');
    expect(chain.input).toEqual({ type: 'json', value: { question: 'What is OTLP?' } });
    expect(chain.output).toEqual({ type: 'text', value: 'OTLP is the OpenTelemetry protocol.' });
    expect(chain.attributes).toEqual({});

    const tool = only(result, 'b000000000000003');
    expect(tool.type).toBe('tool');
    expect(tool.input).toEqual({ type: 'text', value: 'otlp spec' });
    expect(tool.attributes).toEqual({ 'tool.name': 'search' });

    const retriever = only(result, 'b000000000000004');
    expect(retriever.type).toBe('retriever');
    expect(retriever.input).toEqual({ type: 'text', value: 'what is otlp' });
    expect(retriever.output).toEqual({
      type: 'json',
      value: [
        { document_id: 'doc-1', content: 'OTLP is a protocol.', score: 0.91, metadata: { source: 'spec.md' } },
        { document_id: 'doc-2', content: 'Collectors receive OTLP.' },
      ],
    });

    const embedding = only(result, 'b000000000000005');
    expect(embedding.type).toBe('embedding');
    expect(embedding.model).toBe('text-embedding-3-small');
    expect(embedding.metrics.prompt_tokens).toBe(8);

    // An agent's token counts repeat its LLM calls': kept as attributes, not metrics.
    const agent = only(result, 'b000000000000006');
    expect(agent.type).toBe('agent');
    expect(agent.model).toBe('gpt-4o');
    expect(agent.metrics.prompt_tokens).toBeNull();
    expect(agent.attributes).toEqual({ 'llm.token_count.prompt': 500, 'llm.token_count.completion': 50 });
  });
});

describe('OTLP protobuf and JSON from the real OpenTelemetry JS exporter serializers', () => {
  function buildSpans() {
    const { tracer, spans } = memoryTracer(
      { 'service.name': 'checkout', 'telemetry.sdk.name': 'opentelemetry', 'telemetry.sdk.language': 'nodejs', 'telemetry.sdk.version': '2.12.1' },
      'my-instrumentation',
    );
    const start = [1735689600, 123456789] as [number, number];
    const root = tracer.startSpan('POST /chat', { kind: SpanKind.SERVER, startTime: start });
    const parent = trace.setSpan(ROOT_CONTEXT, root);
    const llm = tracer.startSpan(
      'chat gpt-4o',
      {
        kind: SpanKind.CLIENT,
        startTime: [1735689600, 200000000],
        links: [{ context: root.spanContext(), attributes: { 'link.reason': 'retry' } }],
      },
      parent,
    );
    llm.setAttributes({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.request.temperature': 0.7,
      'gen_ai.request.stop_sequences': ['\n\n', 'END'],
      'gen_ai.request.stream': true,
      'gen_ai.usage.input_tokens': 42,
      'gen_ai.usage.output_tokens': 0,
      'gen_ai.conversation.id': 'conv-1',
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Hello' }] }]),
      'app.flags': [true, false],
      'app.ratios': [0.5, 1.5],
      'app.count': 0,
      'app.empty': '',
      'app.json_text': '{"kept": "as a string"}',
    });
    llm.addEvent('first_token', {}, [1735689600, 450000000]);
    llm.recordException(new TypeError('socket hang up'), [1735689600, 900000000]);
    llm.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream failed' });
    llm.end([1735689601, 1000]);
    root.setStatus({ code: SpanStatusCode.OK });
    root.end([1735689601, 500000000]);
    return { spans: spans(), rootId: root.spanContext().spanId, llmId: llm.spanContext().spanId, traceId: root.spanContext().traceId };
  }

  it('decodes every field of the protobuf request intact', () => {
    const { spans, rootId, llmId, traceId } = buildSpans();
    const result = decodeTraceRequest(toOtlpProtobuf(spans), 'application/x-protobuf');
    expect(result.rejected.count).toBe(0);
    expect(result.spans).toHaveLength(2);

    const root = only(result, rootId);
    expect(root).toMatchObject({
      trace_id: traceId,
      parent_id: null,
      name: 'POST /chat',
      kind: 'server',
      type: 'server',
      started_at: 1735689600123.457,
      finished_at: 1735689601500,
      status: { code: 'ok', message: null },
      scope: { name: 'my-instrumentation', version: '1.0.0' },
      trace_metadata: { sdk_name: 'opentelemetry', sdk_language: 'nodejs', sdk_version: '2.12.1' },
    });
    expect(root.resource).toMatchObject({ 'service.name': 'checkout', 'telemetry.sdk.language': 'nodejs' });

    const llm = only(result, llmId);
    expect(llm).toMatchObject({
      trace_id: traceId,
      parent_id: rootId,
      kind: 'client',
      type: 'llm',
      model: 'gpt-4o',
      vendor: 'openai',
      started_at: 1735689600200,
      finished_at: 1735689601000.001,
      first_token_at: 1735689600450,
      params: { temperature: 0.7, stop_sequences: ['\n\n', 'END'], stream: true },
      metrics: { prompt_tokens: 42, completion_tokens: 0 },
      input: { type: 'chat_messages', value: [{ role: 'user', content: 'Hello' }] },
      output: null,
      status: { code: 'error', message: 'upstream failed' },
      trace_metadata: { thread_id: 'conv-1' },
    });
    expect(llm.error?.has_error).toBe(true);
    expect(llm.error?.message).toBe('upstream failed');
    expect(llm.error?.stacktrace[0]).toBe('TypeError: socket hang up');
    expect(llm.error?.stacktrace.length).toBeGreaterThan(1);
    expect(llm.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'app.flags': [true, false],
      'app.ratios': [0.5, 1.5],
      'app.count': 0,
      'app.empty': '',
      'app.json_text': '{"kept": "as a string"}',
    });
    expect(llm.links).toEqual([{ trace_id: traceId, span_id: rootId, attributes: { 'link.reason': 'retry' } }]);
    expect(llm.events.map((e) => e.name)).toEqual(['first_token', 'exception']);
    expect(llm.events[1]).toMatchObject({
      time: 1735689600900,
      attributes: { 'exception.type': 'TypeError', 'exception.message': 'socket hang up' },
    });
  });

  it('decodes the JSON serializer output to the same spans', () => {
    const { spans } = buildSpans();
    const fromProto = decodeTraceRequest(toOtlpProtobuf(spans), 'application/x-protobuf');
    const fromJson = decodeTraceRequest(toOtlpJson(spans), 'application/json; charset=utf-8');
    expect(fromJson).toEqual(fromProto);
  });

  it('answers partial success in a form the exporter itself parses', () => {
    const rejected = { count: 2, messages: ['span a: trace id is all zeroes', 'span b: start time is missing'] };
    const response = ProtobufTraceSerializer.deserializeResponse(encodeExportTraceResponse(rejected, 'protobuf'));
    expect(Number(response.partialSuccess?.rejectedSpans)).toBe(2);
    expect(response.partialSuccess?.errorMessage).toBe('span a: trace id is all zeroes; span b: start time is missing');
    expect(encodeExportTraceResponse({ count: 0, messages: [] }, 'protobuf')).toHaveLength(0);
    expect(JSON.parse(encodeExportTraceResponse(rejected, 'json').toString())).toEqual({
      partialSuccess: { rejectedSpans: '2', errorMessage: 'span a: trace id is all zeroes; span b: start time is missing' },
    });
    expect(encodeExportTraceResponse({ count: 0, messages: [] }, 'json').toString()).toBe('{}');
  });
});

describe('OTLP/JSON encoding details', () => {
  it('reads the opentelemetry-proto example: uppercase hex ids, numeric kind, scope', () => {
    const result = decodeTraceRequest(fixtureBuffer('proto_examples/trace.json'), JSON_TYPE);
    expect(result.rejected.count).toBe(0);
    expect(result.spans).toHaveLength(1);
    expect(result.spans[0]).toMatchObject({
      trace_id: '5b8efff798038103d269b633813fc60c',
      span_id: 'eee19b7ec3c1b174',
      parent_id: 'eee19b7ec3c1b173',
      name: "I'm a server span",
      kind: 'server',
      type: 'server',
      started_at: 1544712660000,
      finished_at: 1544712661000,
      scope: { name: 'my.library', version: '1.0.0' },
      resource: { 'service.name': 'my.service' },
      attributes: { 'my.span.attr': 'some value' },
    });
  });

  it('accepts base64 ids, numeric timestamps, enum names, snake_case fields and kvlists', () => {
    const body = Buffer.from(
      JSON.stringify({
        resource_spans: [
          {
            scope_spans: [
              {
                spans: [
                  {
                    trace_id: Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex').toString('base64'),
                    span_id: Buffer.from('b7ad6b7169203331', 'hex').toString('base64'),
                    parent_span_id: '',
                    name: 'base64 ids',
                    kind: 'SPAN_KIND_CONSUMER',
                    start_time_unix_nano: 1735689600000000000,
                    end_time_unix_nano: '1735689600000001500',
                    status: { code: 'STATUS_CODE_ERROR' },
                    attributes: [
                      { key: 'big', value: { intValue: '9007199254740993' } },
                      { key: 'neg', value: { int_value: -5 } },
                      { key: 'nan', value: { doubleValue: 'NaN' } },
                      { key: 'raw', value: { bytesValue: 'AQID' } },
                      { key: 'empty', value: {} },
                      {
                        key: 'obj',
                        value: {
                          kvlistValue: {
                            values: [
                              { key: 'a', value: { intValue: 1 } },
                              { key: 'b', value: { arrayValue: { values: [{ stringValue: 'x' }, { boolValue: false }] } } },
                            ],
                          },
                        },
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    const result = decodeTraceRequest(body, JSON_TYPE);
    expect(result.rejected.count).toBe(0);
    const [span] = result.spans;
    expect(span).toMatchObject({
      trace_id: '0af7651916cd43dd8448eb211c80319c',
      span_id: 'b7ad6b7169203331',
      parent_id: null,
      kind: 'consumer',
      started_at: 1735689600000,
      finished_at: 1735689600000.002,
      status: { code: 'error', message: null },
      error: { has_error: true, message: 'error', stacktrace: [] },
    });
    expect(span.attributes).toEqual({
      big: '9007199254740993',
      neg: -5,
      nan: Number.NaN,
      raw: 'AQID',
      empty: null,
      obj: { a: 1, b: ['x', false] },
    });
  });

  it('keeps int64 values beyond 2^53 exact from protobuf too', () => {
    const body = otlpJsonToProtobuf({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId: 'b7ad6b7169203331',
                  name: 'big',
                  startTimeUnixNano: '1735689600000000000',
                  endTimeUnixNano: '1735689600000000000',
                  attributes: [
                    { key: 'big', value: { intValue: '-9223372036854775808' } },
                    { key: 'small', value: { intValue: '-42' } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    const [span] = decodeTraceRequest(body, PROTOBUF_TYPE).spans;
    expect(span.attributes).toEqual({ big: '-9223372036854775808', small: -42 });
  });

  it('replaces invalid UTF-8 in protobuf strings instead of failing the request', () => {
    const body = otlpJsonToProtobuf(fixtureJson('proto_examples/trace.json'));
    const at = body.indexOf(Buffer.from('some value'));
    expect(at).toBeGreaterThan(0);
    body[at] = 0xff;
    const result = decodeTraceRequest(body, PROTOBUF_TYPE);
    expect(result.spans[0].attributes['my.span.attr']).toBe('\ufffdome value');
  });

  it('picks the format from the Content-Type, and sniffs when there is none', () => {
    expect(otlpFormat('application/json')).toBe('json');
    expect(otlpFormat('Application/JSON; charset=utf-8')).toBe('json');
    expect(otlpFormat('application/x-protobuf')).toBe('protobuf');
    expect(otlpFormat('application/protobuf')).toBe('protobuf');
    expect(otlpFormat('text/plain')).toBeNull();
    const json = fixtureBuffer('proto_examples/trace.json');
    expect(decodeTraceRequest(json, '').spans).toHaveLength(1);
    expect(decodeTraceRequest(otlpJsonToProtobuf(fixtureJson('proto_examples/trace.json')), '').spans).toHaveLength(1);
  });
});

describe('bad input', () => {
  function expectDecodeError(fn: () => unknown, code: string, message: RegExp): void {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(OtlpDecodeError);
      expect((error as OtlpDecodeError).code).toBe(code);
      expect((error as OtlpDecodeError).statusCode).toBe(code === 'unsupported_media_type' ? 415 : 400);
      expect((error as Error).message).toMatch(message);
      return;
    }
    throw new Error('expected an OtlpDecodeError');
  }

  it('rejects malformed protobuf as a whole', () => {
    // A length-delimited resource_spans whose length runs past the end of the body.
    expectDecodeError(() => decodeTraceRequest(Buffer.from([0x0a, 0xff, 0x01, 0x0a]), PROTOBUF_TYPE), 'malformed_request', /protobuf/);
    // A valid request cut in half.
    const valid = otlpJsonToProtobuf(fixtureJson('semconv_01_simple_chat_completion_content_enabled_span_attrs.traces.json'));
    expectDecodeError(() => decodeTraceRequest(valid.subarray(0, valid.length >> 1), PROTOBUF_TYPE), 'malformed_request', /protobuf/);
    // An invalid wire type.
    expectDecodeError(() => decodeTraceRequest(Buffer.from([0x0f, 0x00]), PROTOBUF_TYPE), 'malformed_request', /protobuf/);
  });

  it('rejects invalid JSON and JSON that is not a trace request', () => {
    expectDecodeError(() => decodeTraceRequest(Buffer.from('{"resourceSpans": ['), JSON_TYPE), 'malformed_request', /not valid JSON/);
    expectDecodeError(() => decodeTraceRequest(Buffer.from(''), JSON_TYPE), 'malformed_request', /empty/);
    expectDecodeError(() => decodeTraceRequest(Buffer.from('[1, 2]'), JSON_TYPE), 'malformed_request', /JSON object/);
    expectDecodeError(
      () => decodeTraceRequest(Buffer.from('{"resourceSpans": {"x": 1}}'), JSON_TYPE),
      'malformed_request',
      /resourceSpans must be an array/,
    );
  });

  it('refuses content types it cannot read', () => {
    expectDecodeError(() => decodeTraceRequest(Buffer.from('hello'), 'text/plain'), 'unsupported_media_type', /text\/plain/);
  });

  it('accepts an empty protobuf request', () => {
    expect(decodeTraceRequest(Buffer.alloc(0), PROTOBUF_TYPE)).toEqual({ spans: [], rejected: { count: 0, messages: [] } });
  });

  it('rejects spans with bad ids and keeps the good ones', () => {
    const body = otlpJson([
      jsonSpan({ spanId: 'c000000000000001', name: 'good' }),
      jsonSpan({ spanId: 'c000000000000002', traceId: '0af7651916cd43dd8448eb211c8031', name: 'short trace id' }),
      jsonSpan({ spanId: 'c00000000000000003', name: 'long span id' }),
      jsonSpan({ spanId: 'c000000000000004', traceId: '00000000000000000000000000000000', name: 'zero trace id' }),
      jsonSpan({ spanId: '0000000000000000', name: 'zero span id' }),
      jsonSpan({ spanId: 'c000000000000006', parentSpanId: 'abcd', name: 'short parent' }),
      jsonSpan({ spanId: 'c000000000000007', traceId: 'not-an-id!', name: 'garbage' }),
      jsonSpan({ spanId: 'c000000000000008', startTimeUnixNano: '0', name: 'no start' }),
      jsonSpan({ spanId: 'c000000000000009', parentSpanId: '0000000000000000', name: 'zero parent is a root' }),
      jsonSpan({ spanId: 'c00000000000000a', endTimeUnixNano: '1735689599000000000', name: 'ends before it starts' }),
      jsonSpan({ spanId: 'c00000000000000b', traceId: undefined, name: 'missing trace id' }),
    ]);
    const result = decodeTraceRequest(body, JSON_TYPE);
    expect(result.spans.map((s) => s.name)).toEqual(['good', 'zero parent is a root', 'ends before it starts']);
    expect(result.spans[1].parent_id).toBeNull();
    expect(result.spans[2].finished_at).toBe(result.spans[2].started_at);
    expect(result.rejected.count).toBe(8);
    expect(result.rejected.messages).toEqual([
      'span c000000000000002 "short trace id" (resourceSpans[0].scopeSpans[0].spans[1]): trace id must be 16 bytes, got 15',
      'span "long span id" (resourceSpans[0].scopeSpans[0].spans[2]): span id must be 8 bytes, got 9',
      'span c000000000000004 "zero trace id" (resourceSpans[0].scopeSpans[0].spans[3]): trace id is all zeroes',
      'span 0000000000000000 "zero span id" (resourceSpans[0].scopeSpans[0].spans[4]): span id is all zeroes',
      'span c000000000000006 "short parent" (resourceSpans[0].scopeSpans[0].spans[5]): parent span id must be 8 bytes or empty, got 2',
      'span c000000000000007 "garbage" (resourceSpans[0].scopeSpans[0].spans[6]): trace id is not hex or base64',
      'span c000000000000008 "no start" (resourceSpans[0].scopeSpans[0].spans[7]): start time is missing',
      'span c00000000000000b "missing trace id" (resourceSpans[0].scopeSpans[0].spans[10]): trace id must be 16 bytes, got 0',
    ]);
  });

  it('rejects wrong-length ids in protobuf too', () => {
    const doc = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                jsonSpan({ spanId: 'd000000000000001', name: 'good' }),
                jsonSpan({ spanId: 'd0000000000001', name: 'seven-byte span id' }),
                jsonSpan({ spanId: 'd000000000000003', traceId: '', name: 'no trace id' }),
              ],
            },
          ],
        },
      ],
    };
    const result = decodeTraceRequest(otlpJsonToProtobuf(doc), PROTOBUF_TYPE);
    expect(result.spans.map((s) => s.span_id)).toEqual(['d000000000000001']);
    expect(result.rejected.count).toBe(2);
    expect(result.rejected.messages[0]).toMatch(/"seven-byte span id".*span id must be 8 bytes, got 7/);
    expect(result.rejected.messages[1]).toMatch(/span d000000000000003 "no trace id".*trace id must be 16 bytes, got 0/);
  });

  it('rejects a span with 10,000 attributes by name, and keeps the rest of the batch', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => int(`attr.${i}`, i));
    const doc = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                jsonSpan({ spanId: 'e000000000000001', name: 'fine', attributes: [str('a', 'b')] }),
                jsonSpan({ spanId: 'e000000000000002', name: 'attribute flood', attributes: many }),
                jsonSpan({
                  spanId: 'e000000000000003',
                  name: 'at the limit',
                  attributes: many.slice(0, MAX_ATTRIBUTES_PER_SPAN),
                }),
              ],
            },
          ],
        },
      ],
    };
    for (const [body, type] of [
      [Buffer.from(JSON.stringify(doc)), JSON_TYPE],
      [otlpJsonToProtobuf(doc), PROTOBUF_TYPE],
    ] as const) {
      const result = decodeTraceRequest(body, type);
      expect(result.spans.map((s) => s.name)).toEqual(['fine', 'at the limit']);
      expect(Object.keys(result.spans[1].attributes)).toHaveLength(MAX_ATTRIBUTES_PER_SPAN);
      expect(result.rejected).toEqual({
        count: 1,
        messages: [
          `span e000000000000002 "attribute flood" (resourceSpans[0].scopeSpans[0].spans[1]): 10000 attributes exceed the limit of ${MAX_ATTRIBUTES_PER_SPAN} per span`,
        ],
      });
    }
  });

  it('rejects spans that are not objects and caps the rejection messages', () => {
    const spans: unknown[] = [jsonSpan({ spanId: 'f000000000000001', name: 'kept' })];
    for (let i = 0; i < MAX_REJECTION_MESSAGES + 5; i++) spans.push(i % 2 === 0 ? 42 : jsonSpan({ traceId: 'zz' }));
    const body = Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }));
    const result = decodeTraceRequest(body, JSON_TYPE);
    expect(result.spans).toHaveLength(1);
    expect(result.rejected.count).toBe(MAX_REJECTION_MESSAGES + 5);
    expect(result.rejected.messages).toHaveLength(MAX_REJECTION_MESSAGES + 1);
    expect(result.rejected.messages[0]).toBe('span (resourceSpans[0].scopeSpans[0].spans[1]): is not an object');
    expect(result.rejected.messages.at(-1)).toBe('... and 5 more rejected spans');
  });

  it('bounds how deep attribute values nest', () => {
    // Written as text: JSON.stringify itself cannot nest this deep.
    const nested = (depth: number) => `${'{"arrayValue":{"values":['.repeat(depth)}{"stringValue":"x"}${']}}'.repeat(depth)}`;
    const spanText = (spanId: string, name: string, depth: number) =>
      JSON.stringify(jsonSpan({ spanId, name, attributes: [{ key: 'v', value: 'VALUE' }] })).replace('"VALUE"', nested(depth));
    const body = Buffer.from(
      `{"resourceSpans":[{"scopeSpans":[{"spans":[${spanText('f000000000000004', 'shallow', 20)},${spanText('f000000000000005', 'deep', 100_000)}]}]}]}`,
    );
    const result = decodeTraceRequest(body, JSON_TYPE);
    expect(result.spans.map((s) => s.name)).toEqual(['shallow']);
    expect(result.rejected.messages).toEqual([
      'span f000000000000005 "deep" (resourceSpans[0].scopeSpans[0].spans[1]): attribute value nests deeper than 32 levels',
    ]);

    // Protobuf stops at protobufjs's 100 message levels, for the request as a whole.
    const varint = (n: number): Buffer => {
      const bytes: number[] = [];
      while (n > 0x7f) {
        bytes.push((n & 0x7f) | 0x80);
        n >>>= 7;
      }
      bytes.push(n);
      return Buffer.from(bytes);
    };
    const field = (n: number, payload: Buffer) => Buffer.concat([varint((n << 3) | 2), varint(payload.length), payload]);
    let value = field(1, Buffer.from('x'));
    for (let i = 0; i < 200; i++) value = field(5, field(1, value)); // AnyValue.array_value.values
    const span = Buffer.concat([
      field(1, Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex')),
      field(2, Buffer.from('b7ad6b7169203331', 'hex')),
      field(9, Buffer.concat([field(1, Buffer.from('v')), field(2, value)])),
    ]);
    const request = field(1, field(2, field(2, span)));
    expectDecodeError(() => decodeTraceRequest(request, PROTOBUF_TYPE), 'malformed_request', /max depth/);
  });

  it('keeps the last copy of a span sent twice in one request', () => {
    const body = otlpJson([
      jsonSpan({ spanId: 'f000000000000002', name: 'first copy' }),
      jsonSpan({ spanId: 'f000000000000003', name: 'other' }),
      jsonSpan({ spanId: 'f000000000000002', name: 'second copy' }),
      jsonSpan({ spanId: 'f000000000000002', traceId: '1af7651916cd43dd8448eb211c80319c', name: 'same id, other trace' }),
    ]);
    const result = decodeTraceRequest(body, JSON_TYPE);
    expect(result.spans.map((s) => s.name)).toEqual(['second copy', 'other', 'same id, other trace']);
    expect(result.rejected.count).toBe(0);
  });

  it('decoded in turns (the server) a request gives what decoding at once gives, spans past a turn and rejections included; a bad body fails alone', async () => {
    const spans = Array.from({ length: 700 }, (_, i) =>
      i % 100 === 7 ? jsonSpan({ startTimeUnixNano: '0' }) : jsonSpan({ attributes: [{ key: 'gen_ai.request.model', value: { stringValue: `m${i}` } }] }),
    );
    const body = otlpJson(spans);
    const atOnce = decodeTraceRequest(body, JSON_TYPE);
    const [inTurns, bad, again] = await Promise.allSettled([
      decodeTraceRequestInTurns(body, JSON_TYPE),
      decodeTraceRequestInTurns(Buffer.from([0x0a, 0xff, 0x01, 0x0a]), PROTOBUF_TYPE),
      decodeTraceRequestInTurns(body, JSON_TYPE),
    ]);
    expect(atOnce.spans).toHaveLength(693);
    expect(atOnce.rejected.count).toBe(7);
    expect(inTurns.status === 'fulfilled' && inTurns.value).toEqual(atOnce);
    expect(bad.status === 'rejected' && bad.reason).toBeInstanceOf(OtlpDecodeError);
    expect(again.status === 'fulfilled' && again.value).toEqual(atOnce);
  });
});
