import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanStatusCode } from '@opentelemetry/api';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { spanAt, withExporter, type ExporterKind } from '../support/otel.ts';

/** Text of a message whatever shape its content has (string or parts). */
function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : (p?.text ?? p?.content ?? ''))).join('');
  return JSON.stringify(content ?? '');
}
const messages = (payload: { type: string; value: { role: string; content: unknown }[] }) => {
  expect(payload.type).toBe('chat_messages');
  return payload.value.map((m) => ({ role: m.role, text: text(m.content) }));
};

interface Family {
  name: string;
  spanName: string;
  attributes: Record<string, string | number | boolean>;
  model: string[];
  prompt: number;
  completion: number;
  input: { role: string; text: string }[];
  output: string;
}

const FAMILIES: Family[] = [
  {
    name: 'OpenTelemetry GenAI (current: gen_ai.input.messages / output.messages)',
    spanName: 'chat gpt-4o',
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.usage.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 500,
      'gen_ai.usage.cache_read.input_tokens': 400,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Rainy, 12°C.' }], finish_reason: 'stop' }]),
    },
    model: ['gpt-4o-2024-08-06', 'gpt-4o'],
    prompt: 1000,
    completion: 500,
    input: [{ role: 'user', text: 'Weather in Paris?' }],
    output: 'Rainy, 12°C.',
  },
  {
    name: 'OpenTelemetry GenAI (older gen_ai.prompt / gen_ai.completion)',
    spanName: 'chat gpt-4o-mini',
    attributes: {
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.usage.prompt_tokens': 10,
      'gen_ai.usage.completion_tokens': 5,
      'gen_ai.prompt': JSON.stringify([{ role: 'user', content: 'What is 2+2?' }]),
      'gen_ai.completion': JSON.stringify([{ role: 'assistant', content: '4' }]),
    },
    model: ['gpt-4o-mini'],
    prompt: 10,
    completion: 5,
    input: [{ role: 'user', text: 'What is 2+2?' }],
    output: '4',
  },
  {
    name: 'OpenInference',
    spanName: 'ChatCompletion',
    attributes: {
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'gpt-4o-mini',
      'llm.provider': 'openai',
      'llm.invocation_parameters': '{"temperature":0.1}',
      'llm.token_count.prompt': 12,
      'llm.token_count.completion': 3,
      'llm.input_messages.0.message.role': 'system',
      'llm.input_messages.0.message.content': 'Be brief.',
      'llm.input_messages.1.message.role': 'user',
      'llm.input_messages.1.message.content': 'Capital of France?',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'Paris',
    },
    model: ['gpt-4o-mini'],
    prompt: 12,
    completion: 3,
    input: [
      { role: 'system', text: 'Be brief.' },
      { role: 'user', text: 'Capital of France?' },
    ],
    output: 'Paris',
  },
  {
    name: 'OpenLLMetry / traceloop',
    spanName: 'openai.chat',
    attributes: {
      'llm.request.type': 'chat',
      'gen_ai.system': 'OpenAI',
      'gen_ai.request.model': 'gpt-3.5-turbo',
      'gen_ai.response.model': 'gpt-3.5-turbo-0125',
      'gen_ai.prompt.0.role': 'user',
      'gen_ai.prompt.0.content': 'Tell me a joke',
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.content': 'Why did the span cross the trace?',
      'gen_ai.usage.prompt_tokens': 8,
      'gen_ai.usage.completion_tokens': 12,
      'llm.usage.total_tokens': 20,
    },
    model: ['gpt-3.5-turbo-0125', 'gpt-3.5-turbo'],
    prompt: 8,
    completion: 12,
    input: [{ role: 'user', text: 'Tell me a joke' }],
    output: 'Why did the span cross the trace?',
  },
  {
    name: 'Vercel AI SDK',
    spanName: 'ai.generateText.doGenerate',
    attributes: {
      'operation.name': 'ai.generateText.doGenerate',
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.model.id': 'gpt-4o',
      'ai.model.provider': 'openai.chat',
      'ai.prompt.messages': JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'Sunny tomorrow?' }] }]),
      'ai.response.text': 'Yes, sunny.',
      'ai.usage.promptTokens': 20,
      'ai.usage.completionTokens': 2,
      'ai.telemetry.metadata.userId': 'u-42',
    },
    model: ['gpt-4o'],
    prompt: 20,
    completion: 2,
    input: [{ role: 'user', text: 'Sunny tomorrow?' }],
    output: 'Yes, sunny.',
  },
];

describe.each(appDatabaseKinds)('OTLP ingestion through the real exporters (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t.close());

  const exporters: ExporterKind[] = ['protobuf', 'json'];
  for (const exporter of exporters) {
    for (const family of FAMILIES) {
      it(`${family.name} via ${exporter}`, async () => {
        let traceId = '';
        const start = Date.now() - 5_000;
        await withExporter(t.baseUrl, { Authorization: `Bearer ${t.creds.projectApiKey}` }, exporter, (tracer) => {
          const { span, end } = spanAt(tracer, family.spanName, { ...family.attributes, 'custom.flag': 'kept' }, start, start + 1234);
          traceId = span.spanContext().traceId;
          end();
        });
        const res = await t.request('GET', `/api/trace/${traceId}`, { token: t.creds.projectApiKey });
        expect(res.status).toBe(200);
        const detail = res.body;
        expect(detail.trace_id).toBe(traceId);
        expect(detail.metadata.sdk_language).toBe('nodejs');
        expect(typeof detail.metadata.sdk_version).toBe('string');
        expect(detail.spans).toHaveLength(1);
        const span = detail.spans[0];
        expect(span.type).toBe('llm');
        expect(family.model).toContain(span.model);
        expect(span.metrics).toMatchObject({ prompt_tokens: family.prompt, completion_tokens: family.completion, tokens_estimated: false });
        expect(messages(span.input)).toEqual(family.input);
        expect(messages(span.output).map((m) => m.text).join('')).toContain(family.output);
        expect(span.timestamps.finished_at - span.timestamps.started_at).toBe(1234);
        expect(span.attributes['custom.flag']).toBe('kept');
        expect(detail.metrics).toMatchObject({ prompt_tokens: family.prompt, completion_tokens: family.completion, total_time_ms: 1234 });
        expect(detail.input.value).toBe(family.input[family.input.length - 1].text);
        expect(detail.output.value).toContain(family.output);

        const search = await t.request('POST', '/api/trace/search', {
          token: t.creds.projectApiKey,
          body: { query: family.input[family.input.length - 1].text, filters: { model: span.model } },
        });
        expect(search.status).toBe(200);
        expect(search.body.traces.map((x: { trace_id: string }) => x.trace_id)).toContain(traceId);
      });
    }
  }

  it('prices cached input tokens correctly (gpt-4o: 600 uncached + 400 cached + 500 output = $0.007)', async () => {
    let traceId = '';
    await withExporter(t.baseUrl, { Authorization: `Bearer ${t.creds.projectApiKey}` }, 'protobuf', (tracer) => {
      const { span, end } = spanAt(tracer, 'chat', FAMILIES[0].attributes, Date.now() - 1000, Date.now());
      traceId = span.spanContext().traceId;
      end();
    });
    const detail = (await t.request('GET', `/api/trace/${traceId}`, { token: t.creds.projectApiKey })).body;
    // 600 * $2.50/M + 400 * $1.25/M + 500 * $10/M
    expect(detail.spans[0].metrics.cost).toBeCloseTo(0.007, 10);
    expect(detail.metrics.total_cost).toBeCloseTo(0.007, 10);
  });

  it('assembles a tree sent span by span, keeps errors with stack traces from exception events', async () => {
    let traceId = '';
    const t0 = Date.now() - 10_000;
    await withExporter(t.baseUrl, { Authorization: `Bearer ${t.creds.projectApiKey}` }, 'protobuf', (tracer) => {
      const root = spanAt(tracer, 'agent run', { 'openinference.span.kind': 'AGENT', 'input.value': 'Plan my trip', 'output.value': 'Booked.' }, t0, t0 + 5000);
      traceId = root.span.spanContext().traceId;
      const tool = spanAt(tracer, 'search_flights', { 'openinference.span.kind': 'TOOL' }, t0 + 100, t0 + 900, root.span);
      tool.span.recordException({ name: 'TimeoutError', message: 'flight API timed out', stack: 'TimeoutError: flight API timed out\n    at search (tools.ts:10:5)' });
      tool.span.setStatus({ code: SpanStatusCode.ERROR, message: 'flight API timed out' });
      tool.end();
      const llm = spanAt(tracer, 'chat', FAMILIES[1].attributes, t0 + 1000, t0 + 2000, root.span);
      llm.end();
      root.end();
    });
    const detail = (await t.request('GET', `/api/trace/${traceId}`, { token: t.creds.projectApiKey })).body;
    expect(detail.spans).toHaveLength(3);
    expect(detail.input.value).toBe('Plan my trip');
    expect(detail.output.value).toBe('Booked.');
    const tool = detail.spans.find((s: { name: string }) => s.name === 'search_flights');
    expect(tool.type).toBe('tool');
    expect(tool.parent_id).toBe(detail.spans.find((s: { name: string }) => s.name === 'agent run').span_id);
    expect(tool.error).toMatchObject({ has_error: true, message: 'flight API timed out' });
    expect(tool.error.stacktrace.join('\n')).toContain('at search (tools.ts:10:5)');
    expect(detail.error).toMatchObject({ has_error: true });
    expect(detail.metrics.total_time_ms).toBe(5000);
    const errors = await t.request('POST', '/api/trace/search', { token: t.creds.projectApiKey, body: { filters: { has_error: true, span_type: 'tool' } } });
    expect(errors.body.traces.map((x: { trace_id: string }) => x.trace_id)).toContain(traceId);
  });
});
