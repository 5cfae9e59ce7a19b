import * as grpc from '@grpc/grpc-js';
import { expect } from 'vitest';
import { ExportTraceServiceRequestType } from '../../src/modules/traces/ingest/otlp-schema.ts';
import type { TestApp } from '../support/harness.ts';
import { upload } from '../datasets/support.ts';
import type { markers } from './markers.ts';

type Markers = ReturnType<typeof markers>;
const T0 = Date.parse('2026-11-22T09:00:00Z');
const str = (stringValue: string) => ({ stringValue });
const nanos = (ms: number) => String(BigInt(ms) * 1_000_000n);

/**
 * Sends the markers through every way data comes in: OTLP traces and logs, the collector, an
 * annotation comment, dataset records (added, replaced, uploaded, made from a trace) and an
 * experiment's logged rows, outputs and evaluation details. Answers where they should now be
 * read back as placeholders.
 */
export async function sendEverywhere(t: TestApp, m: Markers, prefix: string) {
  const key = t.creds.projectApiKey;
  const ok = (res: { status: number; text: string }, status = 200) => expect(res.status, res.text).toBe(status);
  const traceId = (n: number) => (BigInt(`0x${prefix}`) * 256n + BigInt(n)).toString(16).padStart(32, '0');
  const otlpTrace = traceId(1);
  const spanId = '00000000000000a1';

  ok(
    await t.request('POST', '/api/otel/v1/traces', {
      token: key,
      headers: { 'content-type': 'application/json' },
      rawBody: JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: str('privacy-proof') }] },
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: otlpTrace,
                    spanId,
                    name: 'chat',
                    startTimeUnixNano: nanos(T0),
                    endTimeUnixNano: nanos(T0 + 5),
                    status: { code: 2, message: `failed for ${m.email}` },
                    attributes: [
                      { key: 'gen_ai.request.model', value: str('gpt-4o-mini') },
                      { key: 'gen_ai.prompt.0.role', value: str('user') },
                      { key: 'gen_ai.prompt.0.content', value: str(m.sentence) },
                      { key: 'app.customer_phone', value: str(m.phone) },
                    ],
                    events: [{ name: 'note', timeUnixNano: nanos(T0 + 1), attributes: [{ key: 'card', value: str(m.card) }] }],
                  },
                ],
              },
            ],
          },
        ],
      }),
    }),
  );
  ok(
    await t.request('POST', '/api/otel/v1/logs', {
      token: key,
      headers: { 'content-type': 'application/json' },
      rawBody: JSON.stringify({
        resourceLogs: [
          {
            resource: { attributes: [] },
            scopeLogs: [
              {
                logRecords: [
                  { timeUnixNano: nanos(T0 + 2), eventName: 'gen_ai.choice', traceId: otlpTrace, spanId, body: { kvlistValue: { values: [{ key: 'index', value: { intValue: 0 } }, { key: 'message', value: { kvlistValue: { values: [{ key: 'role', value: str('assistant') }, { key: 'content', value: str(`Noted: ${m.sentence}`) }] } } }] } } },
                  // A span that has not arrived: its events wait in the database meanwhile.
                  { timeUnixNano: nanos(T0 + 2), eventName: 'gen_ai.user.message', traceId: traceId(9), spanId: '00000000000000b9', body: { kvlistValue: { values: [{ key: 'content', value: str(m.sentence) }] } } },
                ],
              },
            ],
          },
        ],
      }),
    }),
  );
  const collected = `${prefix}-collected`;
  ok(
    await t.request('POST', '/api/collector', {
      token: key,
      body: {
        trace_id: collected,
        metadata: { user_id: m.email, labels: [m.phone] },
        spans: [{ span_id: `${collected}-llm`, type: 'llm', model: 'gpt-4o-mini', input: { type: 'text', value: m.sentence }, output: { type: 'chat_messages', value: [{ role: 'assistant', content: `Sure, ${m.email}` }] }, params: { user: m.email }, timestamps: { started_at: T0, finished_at: T0 + 10 } }],
      },
    }),
  );
  ok(await t.request('POST', `/api/annotations/trace/${collected}`, { token: key, body: { comment: `Customer said: ${m.sentence}`, isThumbsUp: false } }));

  const columns = [
    { name: 'question', type: 'string' },
    { name: 'answer', type: 'string' },
  ];
  const dataset = await t.request('POST', '/api/dataset', { token: key, body: { name: `Privacy ${prefix}`, columnTypes: columns } });
  ok(dataset, 201);
  const slug = dataset.body.slug as string;
  ok(await t.request('POST', `/api/dataset/${slug}/records`, { token: key, body: { entries: [{ question: m.sentence, answer: m.email }] } }), 201);
  const patched = await t.request('PATCH', `/api/dataset/${slug}/records/rec-${prefix}`, { token: key, body: { entry: { question: m.phone, answer: m.card } } });
  expect([200, 201], patched.text).toContain(patched.status);
  ok(await upload(t, key, `/api/dataset/${slug}/upload`, { file: { filename: 'people.csv', content: `question,answer\n"${m.sentence}",${m.email}\n` } }));
  ok(await upload(t, key, '/api/dataset/upload', { name: `Uploaded ${prefix}`, file: { filename: 'people.jsonl', content: JSON.stringify({ question: m.sentence, answer: m.phone }) + '\n' } }), 201);
  ok(await t.request('POST', `/api/dataset/${slug}/from-traces`, { token: key, body: { items: [{ traceId: collected }], mapping: { question: 'input', answer: 'output' } } }), 201);

  ok(
    await t.request('POST', '/api/evaluations/batch/log_results', {
      token: key,
      body: {
        experiment_slug: `privacy-${prefix}`,
        run_id: `run-${prefix}`,
        dataset: [{ index: 0, entry: { question: m.sentence }, predicted: { output: `Mailed ${m.email}` }, error: null, duration: 10 }],
        evaluations: [{ index: 0, evaluator: 'judge', name: 'Judge', status: 'processed', score: 1, passed: true, label: m.phone, details: `The answer repeats ${m.card}`, inputs: { email: m.email } }],
        timestamps: { created_at: T0, finished_at: T0 + 60_000 },
      },
    }),
  );
  // OTLP over gRPC: one span whose prompt and attribute carry the markers.
  const grpcTrace = traceId(2);
  const exported = await grpcExport(await t.app.otlpGrpc.listen(0, '127.0.0.1'), key, grpcTrace, m.sentence, m.email);
  expect(exported).toBeNull();
  return { otlpTrace, grpcTrace, collected, slug };
}

/** A span sent as OTLP over gRPC (a raw client of TraceService/Export); the error, or null. */
async function grpcExport(port: number, key: string, traceId: string, prompt: string, customer: string): Promise<grpc.ServiceError | null> {
  const body = Buffer.from(
    ExportTraceServiceRequestType.encode(
      ExportTraceServiceRequestType.fromObject({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: str('privacy-proof-grpc') }] },
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: Buffer.from(traceId, 'hex'),
                    spanId: Buffer.from('00000000000000a2', 'hex'),
                    name: 'chat',
                    startTimeUnixNano: nanos(T0),
                    endTimeUnixNano: nanos(T0 + 5),
                    attributes: [
                      { key: 'gen_ai.prompt.0.role', value: str('user') },
                      { key: 'gen_ai.prompt.0.content', value: str(prompt) },
                      { key: 'app.customer', value: str(customer) },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      }),
    ).finish(),
  );
  const bytes = (b: Buffer) => b;
  const Client = grpc.makeGenericClientConstructor(
    { Export: { path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export', requestStream: false, responseStream: false, requestSerialize: bytes, requestDeserialize: bytes, responseSerialize: bytes, responseDeserialize: bytes } },
    'Export',
  );
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    Export: (body: Buffer, metadata: grpc.Metadata, callback: (err: grpc.ServiceError | null) => void) => void;
  };
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${key}`);
  return new Promise((resolve) =>
    client.Export(body, metadata, (error) => {
      client.close();
      resolve(error);
    }),
  );
}

/** Every needle found in a text or buffer. */
export function foundIn(haystack: string | Buffer, needles: readonly string[]): string[] {
  const buf = typeof haystack === 'string' ? Buffer.from(haystack) : haystack;
  return needles.filter((n) => buf.includes(Buffer.from(n)));
}
