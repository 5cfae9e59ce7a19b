/**
 * OTLP logs: GenAI content sent as log records (the semantic conventions' event form,
 * OpenAI's Python instrumentation and others) lands in its span's input and output,
 * whether the logs arrive before the spans or after them; nothing acknowledged is lost.
 */
import zlib from 'node:zlib';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { ExportLogsServiceRequestType, ExportLogsServiceResponseType } from '../../src/modules/traces/ingest/otlp-schema.ts';
import { appDatabaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';
import { fixtureJson, otlpJsonToProtobuf } from './ingest-helpers.ts';

const TRACE_FIXTURE = 'semconv_02_simple_chat_completion_content_enabled_event_attrs.traces.json';
const LOGS_FIXTURE = 'semconv_02_simple_chat_completion_content_enabled_event_attrs.logs.json';
const FIXTURE_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const FIXTURE_SPAN = '00f067aa0ba902b7';

/** A fixture with its trace id replaced, so each test has a trace of its own. */
function withTraceId<T>(name: string, traceId: string): T {
  return JSON.parse(JSON.stringify(fixtureJson(name)).replaceAll(FIXTURE_TRACE, traceId)) as T;
}

const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');
const nanos = (ms: number) => `${ms}000000`;
const str = (v: string) => ({ stringValue: v });

/** OTLP/JSON logs of one span: [eventName, body (AnyValue JSON), attributes]. */
function logsDoc(traceId: string, spanId: string, records: [string, unknown, Record<string, unknown>?][]) {
  return {
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: str('logs-test') }] },
        scopeLogs: [
          {
            scope: { name: 'opentelemetry.instrumentation.openai_v2' },
            logRecords: records.map(([eventName, body, attrs]) => ({
              timeUnixNano: nanos(Date.parse('2026-11-22T09:00:00Z')),
              eventName,
              traceId,
              spanId,
              body,
              attributes: Object.entries(attrs ?? {}).map(([key, value]) => ({ key, value })),
            })),
          },
        ],
      },
    ],
  };
}

function logsProtobuf(doc: unknown): Buffer {
  const idKeys = new Set(['traceId', 'spanId']);
  const convert = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(convert);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, idKeys.has(k) && typeof v === 'string' ? Buffer.from(v, 'hex') : convert(v)]));
  };
  return Buffer.from(ExportLogsServiceRequestType.encode(ExportLogsServiceRequestType.fromObject(convert(doc) as object)).finish());
}

describe.each(appDatabaseKinds)('OTLP logs: GenAI events merged into spans (%s)', (kind) => {
  let p: ProjectApp;
  const clock = useProjectApp(kind, (app) => (p = app));
  const post = (path: string, body: Buffer | string, contentType: string, headers: Record<string, string> = {}) =>
    p.t.request('POST', path, { token: p.key, rawBody: body, headers: { 'content-type': contentType, ...headers } });
  const detail = async (traceId: string) => {
    const res = await p.t.request('GET', `/api/trace/${traceId}`, { token: p.key });
    expect(res.status).toBe(200);
    return res.body;
  };
  const pendingCount = async () => Number((await rows<{ n: number }>(p.t.db.orm, sql`SELECT count(*)::int AS n FROM span_log_events WHERE project_id = ${p.t.creds.project.id}`))[0].n);

  it('the semantic conventions fixture: logs first (JSON), then the span (protobuf)', async () => {
    const traceId = hex(0x10a1, 32);
    const logs = await post('/api/otel/v1/logs', JSON.stringify(withTraceId(LOGS_FIXTURE, traceId)), 'application/json');
    expect(logs.status, logs.text).toBe(200);
    expect(logs.body).toEqual({});
    expect(await pendingCount()).toBeGreaterThan(0);
    expect((await p.t.request('GET', `/api/trace/${traceId}`, { token: p.key })).status).toBe(404);

    const spans = await post('/api/otel/v1/traces', otlpJsonToProtobuf(withTraceId(TRACE_FIXTURE, traceId)), 'application/x-protobuf');
    expect(spans.status).toBe(200);
    const d = await detail(traceId);
    const span = d.spans.find((s: { span_id: string }) => s.span_id === FIXTURE_SPAN);
    expect(span.input).toEqual({
      type: 'chat_messages',
      value: [
        { role: 'system', content: 'You are a helpful bot' },
        { role: 'user', content: 'Tell me a joke about OpenTelemetry' },
      ],
    });
    expect(span.output.value[0]).toMatchObject({ role: 'assistant' });
    expect(span.output.value[0].content).toContain('Because it always knows how to trace the fun!');
    expect(span.metrics).toMatchObject({ prompt_tokens: 52, completion_tokens: 47, tokens_estimated: false });
    expect(d.input.value).toBe('Tell me a joke about OpenTelemetry');
    expect(d.output.value).toContain('trace the fun');
    expect(await pendingCount()).toBe(0);
  });

  it('the span first (JSON), then its logs (protobuf, gzip, at /v1/logs): the stored trace is updated', async () => {
    const traceId = hex(0x10a2, 32);
    expect((await post('/v1/traces', JSON.stringify(withTraceId(TRACE_FIXTURE, traceId)), 'application/json')).status).toBe(200);
    let d = await detail(traceId);
    expect(d.spans[0].input).toBeNull();
    expect(d.input.value).toBe('');

    const res = await post('/v1/logs', zlib.gzipSync(logsProtobuf(withTraceId(LOGS_FIXTURE, traceId))), 'application/x-protobuf', { 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-protobuf');
    expect(ExportLogsServiceResponseType.toObject(ExportLogsServiceResponseType.decode(Buffer.from(await new Response(res.text).arrayBuffer())))).toEqual({});
    d = await detail(traceId);
    expect(d.spans[0].input.value.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(d.input.value).toBe('Tell me a joke about OpenTelemetry');
    expect(d.output.value).toContain('trace the fun');
    expect(await pendingCount()).toBe(0);
  });

  it('message events (gen_ai.user.message, gen_ai.choice) fill input and output; spans without usage get estimates', async () => {
    const traceId = hex(0x10a3, 32);
    const spanId = hex(0x51, 16);
    const started = Date.parse('2026-11-22T09:00:00Z');
    const spanDoc = {
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              scope: { name: 'opentelemetry.instrumentation.openai_v2' },
              spans: [
                {
                  traceId,
                  spanId,
                  name: 'chat gpt-4o-mini',
                  kind: 3,
                  startTimeUnixNano: nanos(started),
                  endTimeUnixNano: nanos(started + 800),
                  attributes: [
                    { key: 'gen_ai.operation.name', value: str('chat') },
                    { key: 'gen_ai.system', value: str('openai') },
                    { key: 'gen_ai.request.model', value: str('gpt-4o-mini') },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const logs = logsDoc(traceId, spanId, [
      ['gen_ai.system.message', { kvlistValue: { values: [{ key: 'content', value: str('Be brief.') }] } }],
      ['gen_ai.user.message', { kvlistValue: { values: [{ key: 'content', value: str('Say hi') }] } }],
      [
        'gen_ai.choice',
        {
          kvlistValue: {
            values: [
              { key: 'index', value: { intValue: '0' } },
              { key: 'finish_reason', value: str('stop') },
              { key: 'message', value: { kvlistValue: { values: [{ key: 'content', value: str('Hello there') }] } } },
            ],
          },
        },
      ],
    ]);
    // Older senders name the event in an attribute, not the field.
    const older = logs.resourceLogs[0].scopeLogs[0].logRecords[1] as { eventName?: string; attributes: unknown[] };
    delete older.eventName;
    older.attributes.push({ key: 'event.name', value: str('gen_ai.user.message') });
    expect((await post('/api/otel/v1/traces', JSON.stringify(spanDoc), 'application/json')).status).toBe(200);
    expect((await post('/api/otel/v1/logs', JSON.stringify(logs), 'application/json')).status).toBe(200);
    const span = (await detail(traceId)).spans[0];
    expect(span.input.value).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hi' },
    ]);
    expect(span.output.value).toEqual([{ role: 'assistant', content: 'Hello there' }]);
    // No usage on the span: estimated, the answer counted as written ("Hello there" = 2 tokens).
    expect(span.metrics).toMatchObject({ completion_tokens: 2, tokens_estimated: true });
    expect(span.metrics.cost).toBeGreaterThan(0);
    expect(span.events).toEqual([]);
  });

  it('records that belong to no span, or are no GenAI event, are rejected with their reason; all rejected is a 400', async () => {
    const traceId = hex(0x10a4, 32);
    const doc = logsDoc(traceId, hex(0x52, 16), [
      ['gen_ai.user.message', { kvlistValue: { values: [{ key: 'content', value: str('kept') }] } }],
      ['app.started', str('not a GenAI event')],
    ]);
    (doc.resourceLogs[0].scopeLogs[0].logRecords as object[]).push({ eventName: 'gen_ai.user.message', body: str('no span') });
    const partial = await post('/api/otel/v1/logs', JSON.stringify(doc), 'application/json');
    expect(partial.status).toBe(200);
    expect(partial.body.partialSuccess.rejectedLogRecords).toBe('2');
    expect(partial.body.partialSuccess.errorMessage).toContain('"app.started" is not a GenAI event');
    expect(partial.body.partialSuccess.errorMessage).toContain('has no trace id');

    const none = await post('/api/otel/v1/logs', JSON.stringify(logsDoc(traceId, hex(0x53, 16), [['app.log', str('x')]])), 'application/json');
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: 'all_log_records_rejected' });
    expect((await post('/api/otel/v1/logs', '{not json', 'application/json')).status).toBe(400);
    expect((await post('/api/otel/v1/logs', 'x', 'text/plain')).status).toBe(415);
    expect((await p.t.request('POST', '/api/otel/v1/logs', { rawBody: JSON.stringify(doc), headers: { 'content-type': 'application/json' } })).status).toBe(401);
  });

  it('log events whose span never comes are kept 3 days, then pruned by the sweep', async () => {
    const traceId = hex(0x10a5, 32);
    await post('/api/otel/v1/logs', JSON.stringify(logsDoc(traceId, hex(0x54, 16), [['gen_ai.user.message', str('orphan')]])), 'application/json');
    const waiting = await pendingCount();
    expect(waiting).toBeGreaterThan(0);
    clock.advance(2 * 86_400_000);
    await p.t.app.services.traces.sweepRetention();
    expect(await pendingCount()).toBe(waiting);
    clock.advance(1 * 86_400_000 + 60_000);
    await p.t.app.services.traces.sweepRetention();
    expect(await pendingCount()).toBe(0);
  });
});
