/**
 * OTLP over gRPC: the OpenTelemetry gRPC exporter's traces read back identical to the same
 * spans sent by the OTLP/HTTP protobuf exporter; credentials from the metadata, the size
 * limit, admission and gzip as over HTTP; the logs service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import type { Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor, type IdGenerator, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ExportLogsServiceRequestType, ExportTraceServiceRequestType } from '../../src/modules/traces/ingest/otlp-schema.ts';
import { createTenant, appDatabaseKinds, startApp, type Tenant, type TestApp } from '../support/harness.ts';
import { spanAt } from '../support/otel.ts';

const AGENT_TRACE = (0xa001).toString(16).padStart(32, '0');

/** The same ids on every run of `build`, so two exporters send the very same spans. */
function sequentialIds(): IdGenerator {
  let n = 0;
  return {
    generateTraceId: () => AGENT_TRACE,
    generateSpanId: () => (0xb000 + ++n).toString(16).padStart(16, '0'),
  };
}

async function sendSpans(exporter: SpanExporter, build: (tracer: Tracer) => void) {
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': 'grpc-tests', 'langwatch.sdk.name': 'test-sdk' })),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    idGenerator: sequentialIds(),
  });
  build(provider.getTracer('grpc-tests', '1.0.0'));
  await provider.forceFlush();
  await provider.shutdown();
}

/** A small agent: a chain, an LLM call with messages and usage, a tool call with an error event. */
function agentRun(tracer: Tracer) {
  const t0 = Date.parse('2026-11-22T09:00:00Z');
  const root = spanAt(tracer, 'agent run', { 'langwatch.span.type': 'chain', 'langwatch.input': JSON.stringify({ question: 'Weather in Paris?' }) }, t0, t0 + 900);
  const llm = spanAt(
    tracer,
    'chat gpt-4o',
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Rainy, 12°C.' }], finish_reason: 'stop' }]),
      'app.tags': ['weather', 'paris'],
    },
    t0 + 10,
    t0 + 600,
    root.span,
  );
  const tool = spanAt(tracer, 'get_weather', { 'langwatch.span.type': 'tool', 'app.retries': 2 }, t0 + 610, t0 + 800, root.span);
  tool.span.addEvent('exception', { 'exception.type': 'TimeoutError', 'exception.message': 'upstream slow' }, t0 + 700);
  tool.span.setStatus({ code: 2, message: 'upstream slow' });
  llm.end();
  tool.end();
  root.end();
}

/** A raw gRPC client of one Export method: the bytes go as they are. */
function rawExport(port: number, service: 'trace' | 'logs', body: Buffer, metadata: Record<string, string>, options: grpc.CallOptions = {}) {
  const bytes = (b: Buffer) => b;
  const path = service === 'trace' ? '/opentelemetry.proto.collector.trace.v1.TraceService/Export' : '/opentelemetry.proto.collector.logs.v1.LogsService/Export';
  const Client = grpc.makeGenericClientConstructor(
    { Export: { path, requestStream: false, responseStream: false, requestSerialize: bytes, requestDeserialize: bytes, responseSerialize: bytes, responseDeserialize: bytes } },
    'Export',
  );
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': -1 }) as unknown as grpc.Client & {
    Export: (body: Buffer, metadata: grpc.Metadata, options: grpc.CallOptions, callback: (err: grpc.ServiceError | null, answer?: Buffer) => void) => void;
  };
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(metadata)) md.set(k, v);
  return new Promise<{ error: grpc.ServiceError | null; answer?: Buffer }>((resolve) =>
    client.Export(body, md, options, (error, answer) => {
      client.close();
      resolve({ error, answer });
    }),
  );
}

/** An ExportTraceServiceRequest of one span, protobuf. */
function oneSpan(traceId: string, name = 'raw span', attributes: { key: string; value: { stringValue: string } }[] = []): Buffer {
  const start = BigInt(Date.parse('2026-11-22T09:00:00Z')) * 1_000_000n;
  const message = ExportTraceServiceRequestType.fromObject({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'raw' } }] },
        scopeSpans: [{ spans: [{ traceId: Buffer.from(traceId, 'hex'), spanId: Buffer.from('00000000000000c1', 'hex'), name, startTimeUnixNano: start.toString(), endTimeUnixNano: (start + 5_000_000n).toString(), attributes }] }],
      },
    ],
  });
  return Buffer.from(ExportTraceServiceRequestType.encode(message).finish());
}

describe.each(appDatabaseKinds)('OTLP over gRPC (%s)', (kind) => {
  let t: TestApp;
  let other: Tenant;
  let port: number;
  beforeAll(async () => {
    t = await startApp(kind);
    other = await createTenant(t);
    port = await t.app.otlpGrpc.listen(0, '127.0.0.1');
  });
  afterAll(() => t?.close());
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('the gRPC exporter’s trace reads back identical to the same spans sent over OTLP/HTTP protobuf', async () => {
    const viaGrpc = new GrpcExporter({ url: `http://127.0.0.1:${port}`, metadata: metadataOf(bearer(t.creds.projectApiKey)) });
    await sendSpans(viaGrpc, agentRun);
    // The same ids, so the same spans, into the other tenant's project over HTTP.
    await sendSpans(new ProtoExporter({ url: `${t.baseUrl}/api/otel/v1/traces`, headers: bearer(other.projectToken) }), agentRun);

    const traceId = AGENT_TRACE;
    const fromGrpc = await t.request('GET', `/api/trace/${traceId}`, { token: t.creds.projectApiKey });
    const fromHttp = await t.request('GET', `/api/trace/${traceId}`, { token: other.projectToken });
    expect(fromGrpc.status, fromGrpc.text).toBe(200);
    expect(fromHttp.status, fromHttp.text).toBe(200);
    expect(fromGrpc.body.spans).toHaveLength(3);
    // What differs is where and when each was stored: the project, the insert times (and the summary's hash of them).
    const stored = new Set(['inserted_at', 'updated_at', 'indexing_md5s']);
    const comparable = (detail: Record<string, unknown>) =>
      JSON.parse(JSON.stringify(detail, (key, value: unknown) => (stored.has(key) ? undefined : value)).replaceAll(t.creds.project.id, 'P').replaceAll(other.projectId, 'P')) as unknown;
    expect(comparable(fromGrpc.body)).toEqual(comparable(fromHttp.body));
    const llm = (fromGrpc.body.spans as { name: string; type: string; metrics: unknown }[]).find((s) => s.name === 'chat gpt-4o');
    expect(llm?.type).toBe('llm');
  });

  it('gzip-compressed exports are taken as plain ones', async () => {
    const exporter = new GrpcExporter({ url: `http://127.0.0.1:${port}`, metadata: metadataOf(bearer(t.creds.projectApiKey)), compression: 'gzip' as never });
    const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'gzip' }), spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const span = provider.getTracer('gzip').startSpan('compressed span', { attributes: { 'langwatch.input': 'x'.repeat(50_000) } });
    const traceId = span.spanContext().traceId;
    span.end();
    await provider.forceFlush();
    await provider.shutdown();
    const detail = await t.request('GET', `/api/trace/${traceId}`, { token: t.creds.projectApiKey });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.spans[0].name).toBe('compressed span');
  });

  it('credentials come from the metadata as from HTTP headers: Basic, Bearer, X-Auth-Token, X-Project-Id', async () => {
    const basic = `Basic ${Buffer.from(`${t.creds.project.id}:${t.creds.projectApiKey}`).toString('base64')}`;
    for (const [n, metadata] of [
      [1, { authorization: basic }],
      [2, { 'x-auth-token': t.creds.projectApiKey }],
      [3, { authorization: `Bearer ${t.creds.adminApiKey}`, 'x-project-id': t.creds.project.id }],
    ] as const) {
      const traceId = (0xc000 + n).toString(16).padStart(32, '0');
      const { error } = await rawExport(port, 'trace', oneSpan(traceId), metadata);
      expect(error).toBeNull();
      expect((await t.request('GET', `/api/trace/${traceId}`, { token: t.creds.projectApiKey })).status).toBe(200);
    }
    const refused = [
      [{}, grpc.status.UNAUTHENTICATED, /missing credentials/],
      [bearer('sgp-nosuchkey0000000_000000000000000000000000000000000000000000000000'), grpc.status.UNAUTHENTICATED, /invalid, expired or revoked/],
      [{ authorization: `Bearer ${t.creds.adminApiKey}` }, grpc.status.INVALID_ARGUMENT, /X-Project-Id/],
      [{ authorization: `Bearer ${t.creds.adminApiKey}`, 'x-project-id': other.projectId }, grpc.status.PERMISSION_DENIED, /no access to project/],
    ] as const;
    for (const [metadata, code, details] of refused) {
      const { error } = await rawExport(port, 'trace', oneSpan((0xc0ff).toString(16).padStart(32, '0')), metadata);
      expect(error?.code).toBe(code);
      expect(error?.details).toMatch(details);
    }
    expect((await t.request('GET', `/api/trace/${(0xc0ff).toString(16).padStart(32, '0')}`, { token: t.creds.projectApiKey })).status).toBe(404);
  });

  it('a message that is not OTLP answers INVALID_ARGUMENT; one past 16 MiB uncompressed RESOURCE_EXHAUSTED', async () => {
    const garbage = await rawExport(port, 'trace', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), bearer(t.creds.projectApiKey));
    expect(garbage.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    const big = oneSpan((0xd001).toString(16).padStart(32, '0'), 'big', [{ key: 'blob', value: { stringValue: 'y'.repeat(17 * 1024 * 1024) } }]);
    const tooBig = await rawExport(port, 'trace', big, bearer(t.creds.projectApiKey));
    expect(tooBig.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(tooBig.error?.details).toMatch(/at most 16777216 bytes/);
  });

  it('the logs service merges GenAI events into their span', async () => {
    const traceId = (0xe001).toString(16).padStart(32, '0');
    expect((await rawExport(port, 'trace', oneSpan(traceId, 'chat'), bearer(t.creds.projectApiKey))).error).toBeNull();
    const logs = ExportLogsServiceRequestType.fromObject({
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                {
                  timeUnixNano: `${Date.parse('2026-11-22T09:00:00Z')}000000`,
                  eventName: 'gen_ai.user.message',
                  traceId: Buffer.from(traceId, 'hex'),
                  spanId: Buffer.from('00000000000000c1', 'hex'),
                  body: { kvlistValue: { values: [{ key: 'content', value: { stringValue: 'Hello over gRPC' } }] } },
                },
              ],
            },
          ],
        },
      ],
    });
    const { error } = await rawExport(port, 'logs', Buffer.from(ExportLogsServiceRequestType.encode(logs).finish()), bearer(t.creds.projectApiKey));
    expect(error).toBeNull();
    const detail = await t.request('GET', `/api/trace/${traceId}`, { token: t.creds.projectApiKey });
    expect(JSON.stringify(detail.body.spans[0].input)).toContain('Hello over gRPC');
  });
});

describe.each(appDatabaseKinds)('OTLP over gRPC: admission (%s)', (kind) => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startApp(kind, { env: { SPYGLASS_INGEST_RATE_LIMIT: '0.2' } });
    port = await t.app.otlpGrpc.listen(0, '127.0.0.1');
  });
  afterAll(() => t?.close());

  it('past the per-key rate an export answers UNAVAILABLE (exporters retry it) and stores nothing', async () => {
    const auth = { authorization: `Bearer ${t.creds.projectApiKey}` };
    expect((await rawExport(port, 'trace', oneSpan((0xf001).toString(16).padStart(32, '0')), auth)).error).toBeNull();
    const second = await rawExport(port, 'trace', oneSpan((0xf002).toString(16).padStart(32, '0')), auth);
    expect(second.error?.code).toBe(grpc.status.UNAVAILABLE);
    expect(second.error?.details).toMatch(/rate_limited/);
    expect(second.error?.metadata.get('retry-after')[0]).toMatch(/^\d+$/);
    expect((await t.request('GET', `/api/trace/${(0xf002).toString(16).padStart(32, '0')}`, { token: t.creds.projectApiKey })).status).toBe(404);
  });
});

function metadataOf(entries: Record<string, string>): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(entries)) md.set(k, v);
  return md;
}
