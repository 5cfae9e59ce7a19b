import { ExportTraceServiceRequestType } from '../src/modules/traces/ingest/otlp-schema.ts';

const hex = (n: number, len: number) => n.toString(16).padStart(len, '0').slice(-len);
const kv = (key: string, value: string | number) =>
  typeof value === 'number' ? { key, value: { intValue: value } } : { key, value: { stringValue: value } };

/**
 * How long a trace's spans last: as LLM calls do, spread from 0.2 s to about 20 s (skewed
 * short), the same for a trace number in every run. Analytics' latency percentiles, and
 * anything that keeps a row per latency value, see the spread real traces have.
 */
const durationMs = (traceNo: number) => Math.round(200 * Math.exp(4.6 * ((Math.imul(traceNo + 1, 2654435761) >>> 0) / 2 ** 32) ** 2));

const QUESTIONS = ['refund policy', 'shipping to Norway', 'reset my password', 'invoice copy', 'cancel subscription', 'track order', 'change address', 'warranty claim'];

/**
 * An OTLP protobuf request of `spansPerRequest` spans: traces of `spansPerTrace` spans
 * (an agent root, LLM and tool children) with GenAI attributes, as instrumented apps send.
 */
export function otlpRequest(
  firstTrace: number,
  spansPerRequest: number,
  spansPerTrace: number,
  startMs: number,
  traceSalt = 0,
  firstSpan = 0,
  /** Time between traces (the analytics bench spreads 100k traces over 30 days). */
  traceSpacingMs = 1000,
): Buffer {
  const spans = [];
  for (let i = firstSpan; i < firstSpan + spansPerRequest; i++) {
    const traceNo = firstTrace + Math.floor(i / spansPerTrace);
    const inTrace = i % spansPerTrace;
    const traceId = hex(traceSalt, 8) + hex(traceNo + 1, 24);
    const spanId = hex(traceNo + 1, 10) + hex(inTrace + 1, 6);
    const rootId = hex(traceNo + 1, 10) + hex(1, 6);
    // One trace a second by default, wrapping every 2,000,000 (23 days): ingestion refuses spans more than a day ahead.
    const t = startMs + (traceNo % 2_000_000) * traceSpacingMs + inTrace;
    const q = QUESTIONS[traceNo % QUESTIONS.length];
    const isLlm = inTrace % 2 === 1;
    spans.push({
      traceId: Buffer.from(traceId, 'hex'),
      spanId: Buffer.from(spanId, 'hex'),
      parentSpanId: inTrace === 0 ? Buffer.alloc(0) : Buffer.from(rootId, 'hex'),
      name: inTrace === 0 ? 'agent' : isLlm ? 'chat gpt-4o-mini' : 'lookup',
      kind: inTrace === 0 ? 2 : 3,
      startTimeUnixNano: BigInt(t) * 1_000_000n,
      endTimeUnixNano: BigInt(t + durationMs(traceNo)) * 1_000_000n,
      attributes: isLlm
        ? [
            kv('gen_ai.operation.name', 'chat'),
            kv('gen_ai.provider.name', 'openai'),
            kv('gen_ai.request.model', 'gpt-4o-mini'),
            kv('gen_ai.usage.input_tokens', 120 + (traceNo % 50)),
            kv('gen_ai.usage.output_tokens', 40 + (traceNo % 30)),
            kv('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `Customer ${traceNo} asks about ${q}` }] }])),
            kv('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `Here is what I found about ${q} for order ${traceNo}.` }] }])),
          ]
        : inTrace === 0
          ? [kv('openinference.span.kind', 'AGENT'), kv('input.value', `Customer ${traceNo} asks about ${q}`), kv('output.value', `Answered ${q} #${traceNo}`), kv('user.id', `user-${traceNo % 500}`)]
          : [kv('openinference.span.kind', 'TOOL'), kv('tool.name', 'lookup')],
      status: { code: 1 },
    });
  }
  const message = ExportTraceServiceRequestType.fromObject({
    resourceSpans: [
      {
        resource: { attributes: [kv('service.name', 'bench'), kv('telemetry.sdk.language', 'nodejs'), kv('telemetry.sdk.version', '2.0.0'), kv('telemetry.sdk.name', 'opentelemetry')] },
        scopeSpans: [{ scope: { name: 'bench' }, spans: spans.map((s) => ({ ...s, startTimeUnixNano: s.startTimeUnixNano.toString(), endTimeUnixNano: s.endTimeUnixNano.toString() })) }],
      },
    ],
  });
  return Buffer.from(ExportTraceServiceRequestType.encode(message).finish());
}
