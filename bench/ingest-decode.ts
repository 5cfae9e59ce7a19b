/**
 * Decode + map throughput for OTLP requests of 100 spans (1 server span, 99 GenAI
 * chat spans), made by the real OTel SDK and serialized by the exporters' own
 * serializers. Counts CPU time of this process, not wall time: the cores here are
 * shared. Run: npx tsx bench/ingest-decode.ts
 */
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { decodeTraceRequest } from '../src/modules/traces/ingest/index.ts';
import { decodeExportTraceServiceRequest } from '../src/modules/traces/ingest/otlp-schema.ts';
import { memoryTracer, toOtlpJson, toOtlpProtobuf } from '../test/traces/ingest-helpers.ts';

const BATCH = 100;

function batchSpans(withContent: boolean) {
  const { tracer, spans } = memoryTracer();
  const root = tracer.startSpan('POST /chat', { kind: SpanKind.SERVER });
  const parent = trace.setSpan(ROOT_CONTEXT, root);
  for (let i = 1; i < BATCH; i++) {
    const span = tracer.startSpan('chat gpt-4o', { kind: SpanKind.CLIENT }, parent);
    span.setAttributes({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 512,
      'gen_ai.response.id': `chatcmpl-${i}`,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 120 + i,
      'gen_ai.usage.output_tokens': 40 + i,
      'gen_ai.conversation.id': 'thread-1',
      'user.id': 'user-1',
      'server.address': 'api.openai.com',
      'server.port': 443,
    });
    if (withContent) {
      span.setAttribute(
        'gen_ai.input.messages',
        JSON.stringify([
          { role: 'system', parts: [{ type: 'text', content: 'You are a helpful assistant that answers briefly.' }] },
          { role: 'user', parts: [{ type: 'text', content: `Question number ${i}: what is the weather in Paris today?` }] },
        ]),
      );
      span.setAttribute(
        'gen_ai.output.messages',
        JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: 'It is rainy, 14°C, with wind from the west.' }], finish_reason: 'stop' },
        ]),
      );
    }
    span.end();
  }
  root.end();
  return spans();
}

function measure(label: string, body: Buffer, fn: (b: Buffer) => number): void {
  for (let i = 0; i < 200; i++) fn(body);
  let spans = 0;
  let cpuMicros = 0;
  const cpu0 = process.cpuUsage();
  while (cpuMicros < 3e6) {
    for (let i = 0; i < 50; i++) spans += fn(body);
    const cpu = process.cpuUsage(cpu0);
    cpuMicros = cpu.user + cpu.system;
  }
  const rate = Math.round(spans / (cpuMicros / 1e6)).toLocaleString('en');
  console.log(`${label.padEnd(48)} ${(body.length / 1024).toFixed(1).padStart(6)} KiB  ${rate.padStart(9)} spans/CPU-s`);
}

for (const withContent of [false, true]) {
  const spans = batchSpans(withContent);
  const protobuf = toOtlpProtobuf(spans);
  const json = toOtlpJson(spans);
  const tag = withContent ? 'with messages' : 'no content';
  measure(`protobuf, decode only (${tag})`, protobuf, (b) => {
    let n = 0;
    for (const rs of decodeExportTraceServiceRequest(b).resourceSpans) for (const ss of rs.scopeSpans) n += ss.spans.length;
    return n;
  });
  measure(`protobuf, decodeTraceRequest (${tag})`, protobuf, (b) => decodeTraceRequest(b, 'application/x-protobuf').spans.length);
  measure(`JSON, decodeTraceRequest (${tag})`, json, (b) => decodeTraceRequest(b, 'application/json').spans.length);
}
