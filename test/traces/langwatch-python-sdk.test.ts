/**
 * The LangWatch Python SDK's calls, as its source makes them: login() (login.py: POST
 * /api/auth/validate with X-Auth-Token and the body {}), traces.get and traces.search
 * (traces.py: GET /api/traces/{id}, POST /api/traces/search, with utils/auth.py's
 * headers: Authorization: Bearer and X-Auth-Token, both the key).
 *
 * What the LangWatch Python SDK sends over OTLP, as its source writes it (sdks/python in
 * langwatch/langwatch): `langwatch.sdk.*` on the resource (client.py, Resource.create of the
 * base attributes), `span.update(contexts=[...])` as `langwatch.rag_contexts` (telemetry/span.py,
 * RAGChunks as JSON text), and an evaluation span's output typed `evaluation_result`
 * (evaluation/__init__.py). Each reads back where a LangWatch user looks for it.
 */
import { describe, expect, it } from 'vitest';
import { ExportTraceServiceRequestType } from '../../src/modules/traces/ingest/otlp-schema.ts';
import { appDatabaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';

const T0 = Date.parse('2026-11-22T09:00:00Z');
const TRACE = '5d6c1a1e0f2b4c3d8e9fa0b1c2d3e4f5';
const ROOT = '1111111111111111';
const RAG = '2222222222222222';
const EVAL = '3333333333333333';

type Attribute = { key: string; value: { stringValue: string } };
const attr = (key: string, value: string): Attribute => ({ key, value: { stringValue: value } });
const nanos = (ms: number) => (BigInt(ms) * 1_000_000n).toString();

function span(spanId: string, parent: string | null, name: string, attributes: Attribute[], startMs: number) {
  return {
    traceId: Buffer.from(TRACE, 'hex'),
    spanId: Buffer.from(spanId, 'hex'),
    parentSpanId: parent ? Buffer.from(parent, 'hex') : Buffer.alloc(0),
    name,
    kind: 1,
    startTimeUnixNano: nanos(startMs),
    endTimeUnixNano: nanos(startMs + 50),
    attributes,
  };
}

/** One export of the SDK's BatchSpanProcessor: the resource of Client._base_attributes, three spans. */
function pythonSdkExport(): Buffer {
  const message = ExportTraceServiceRequestType.fromObject({
    resourceSpans: [
      {
        resource: {
          attributes: [
            attr('telemetry.sdk.language', 'python'),
            attr('telemetry.sdk.name', 'opentelemetry'),
            attr('telemetry.sdk.version', '1.44.0'),
            attr('langwatch.sdk.name', 'langwatch-observability-sdk'),
            attr('langwatch.sdk.version', '0.5.1'),
            attr('langwatch.sdk.language', 'python'),
            attr('service.name', 'unknown_service'),
          ],
        },
        scopeSpans: [
          {
            scope: { name: 'langwatch' },
            spans: [
              span(ROOT, null, 'answer_question', [attr('langwatch.span.type', 'span'), attr('langwatch.input', JSON.stringify({ type: 'text', value: 'What is the capital of France?' }))], T0),
              span(
                RAG,
                ROOT,
                'retrieve',
                [
                  attr('langwatch.span.type', 'rag'),
                  // span.update(contexts=[RAGChunk(document_id=..., chunk_id=..., content=...), "a plain string"])
                  attr(
                    'langwatch.rag_contexts',
                    JSON.stringify([
                      { document_id: 'doc-1', chunk_id: '0', content: 'Paris is the capital of France.' },
                      { content: 'France is in Europe.' },
                    ]),
                  ),
                ],
                T0 + 1,
              ),
              span(
                EVAL,
                ROOT,
                'exact_match',
                [
                  attr('langwatch.span.type', 'evaluation'),
                  attr('langwatch.output', JSON.stringify({ type: 'evaluation_result', value: { status: 'processed', passed: true, score: 1 } })),
                ],
                T0 + 2,
              ),
            ],
          },
        ],
      },
    ],
  });
  return Buffer.from(ExportTraceServiceRequestType.encode(message).finish());
}

describe.each(appDatabaseKinds)('the LangWatch Python SDK’s spans (%s)', (kind) => {
  let p: ProjectApp;
  useProjectApp(kind, (x) => (p = x));

  it('reads langwatch.sdk.* from the resource, RAG contexts onto the span, and keeps evaluation_result', async () => {
    const sent = await p.t.request('POST', '/api/otel/v1/traces', { authToken: p.key, rawBody: pythonSdkExport(), headers: { 'content-type': 'application/x-protobuf' } });
    expect(sent.status, sent.text).toBe(200);
    const detail = await p.t.request('GET', `/api/trace/${TRACE}`, { token: p.key });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.metadata).toMatchObject({ sdk_name: 'langwatch-observability-sdk', sdk_version: '0.5.1', sdk_language: 'python' });
    const byId = new Map((detail.body.spans as { span_id: string }[]).map((s) => [s.span_id, s as Record<string, unknown>]));
    expect(byId.get(RAG)?.contexts).toEqual([{ document_id: 'doc-1', chunk_id: '0', content: 'Paris is the capital of France.' }, { content: 'France is in Europe.' }]);
    expect(byId.get(RAG)?.attributes).not.toHaveProperty('langwatch.rag_contexts');
    expect(byId.get(EVAL)?.output).toEqual({ type: 'evaluation_result', value: { status: 'processed', passed: true, score: 1 } });
    expect(byId.get(ROOT)).not.toHaveProperty('contexts');

    // A dataset made from the trace gets the retrieved texts.
    const call = (method: string, url: string, body?: unknown) => p.t.request(method, url, { token: p.key, body });
    const d = (await call('POST', '/api/dataset', { name: 'From the SDK', columnTypes: [{ name: 'question', type: 'string' }, { name: 'contexts', type: 'rag_contexts' }] })).body;
    const added = await call('POST', `/api/dataset/${d.slug}/from-traces`, { items: [{ traceId: TRACE }], mapping: { question: 'input', contexts: 'contexts' } });
    expect(added.status, added.text).toBe(201);
    const entries = (await call('GET', `/api/dataset/${d.slug}`)).body.data.map((r: { entry: unknown }) => r.entry);
    expect(entries).toEqual([{ question: 'What is the capital of France?', contexts: ['Paris is the capital of France.', 'France is in Europe.'] }]);
  });

  it('contexts the SDK could not have written stay as the raw attribute', async () => {
    const body = ExportTraceServiceRequestType.fromObject({
      resourceSpans: [{ scopeSpans: [{ spans: [{ ...span('4444444444444444', null, 'odd', [attr('langwatch.rag_contexts', '{"not": "a list"}')], T0), traceId: Buffer.from('6'.repeat(32), 'hex') }] }] }],
    });
    const sent = await p.t.request('POST', '/api/otel/v1/traces', { authToken: p.key, rawBody: Buffer.from(ExportTraceServiceRequestType.encode(body).finish()), headers: { 'content-type': 'application/x-protobuf' } });
    expect(sent.status, sent.text).toBe(200);
    const detail = await p.t.request('GET', `/api/trace/${'6'.repeat(32)}`, { token: p.key });
    expect(detail.body.spans[0].attributes['langwatch.rag_contexts']).toBe('{"not": "a list"}');
    expect(detail.body.spans[0]).not.toHaveProperty('contexts');
  });
});

describe.each(appDatabaseKinds)('the LangWatch Python SDK’s calls (%s)', (kind) => {
  let p: ProjectApp;
  useProjectApp(kind, (x) => (p = x));
  /** What httpx sends: the SDK's headers and a JSON body. */
  const sdkCall = (method: string, url: string, headers: Record<string, string>, json?: unknown) =>
    fetch(`${p.t.baseUrl}${url}`, {
      method,
      headers: { accept: '*/*', 'user-agent': 'python-httpx/0.28.1', ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  const sdkHeaders = () => ({ Authorization: `Bearer ${p.key}`, 'X-Auth-Token': p.key });

  it('login(): POST /api/auth/validate answers the project for a valid key, 401 for a wrong or missing one', async () => {
    const ok = await sdkCall('POST', '/api/auth/validate', { 'X-Auth-Token': p.key }, {});
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ projectSlug: p.t.creds.project.id, projectId: p.t.creds.project.id });
    // login() says "API key is not valid" on exactly 401.
    expect((await sdkCall('POST', '/api/auth/validate', { 'X-Auth-Token': `${p.key.slice(0, -4)}XXXX` }, {})).status).toBe(401);
    expect((await sdkCall('POST', '/api/auth/validate', { 'X-Auth-Token': '' }, {})).status).toBe(401);
    expect((await sdkCall('POST', '/api/auth/validate', { 'X-Auth-Token': p.other.projectToken }, {})).status).toBe(200);
  });

  it('traces.get and traces.search: GET /api/traces/{id} and POST /api/traces/search answer as /api/trace does', async () => {
    const sent = await p.t.request('POST', '/api/otel/v1/traces', { authToken: p.key, rawBody: pythonSdkExport(), headers: { 'content-type': 'application/x-protobuf' } });
    expect(sent.status, sent.text).toBe(200);
    const got = await sdkCall('GET', `/api/traces/${TRACE}`, sdkHeaders());
    expect(got.status).toBe(200);
    const trace = (await got.json()) as { trace_id: string; spans: unknown[] };
    expect(trace.trace_id).toBe(TRACE);
    expect(trace.spans).toHaveLength(3);
    expect(trace).toEqual((await p.t.request('GET', `/api/trace/${TRACE}`, { token: p.key })).body);

    const searched = await sdkCall('POST', '/api/traces/search', sdkHeaders(), { query: 'capital of France', pageSize: 10, startDate: T0 - 86_400_000, endDate: T0 + 86_400_000 });
    expect(searched.status).toBe(200);
    const page = (await searched.json()) as { traces: { trace_id: string }[]; pagination: { totalHits: number } };
    expect(page.traces.map((t) => t.trace_id)).toEqual([TRACE]);
    expect(page.pagination.totalHits).toBe(1);
    // Another project's key sees neither.
    const foreign = { Authorization: `Bearer ${p.other.projectToken}`, 'X-Auth-Token': p.other.projectToken };
    expect((await sdkCall('GET', `/api/traces/${TRACE}`, foreign)).status).toBe(404);
    expect(((await (await sdkCall('POST', '/api/traces/search', foreign, {})).json()) as { traces: unknown[] }).traces).toEqual([]);
    // A body the search refuses names the field, as on /api/trace/search.
    const bad = await sdkCall('POST', '/api/traces/search', sdkHeaders(), { pageSize: 5000 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('pageSize');
  });
});
