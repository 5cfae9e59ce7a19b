/**
 * What the LangWatch Python SDK sends over OTLP, as its source writes it (sdks/python in
 * langwatch/langwatch): `langwatch.sdk.*` on the resource (client.py, Resource.create of the
 * base attributes), `span.update(contexts=[...])` as `langwatch.rag_contexts` (telemetry/span.py,
 * RAGChunks as JSON text), and an evaluation span's output typed `evaluation_result`
 * (evaluation/__init__.py). Each reads back where a LangWatch user looks for it.
 */
import { describe, expect, it } from 'vitest';
import { ExportTraceServiceRequestType } from '../../src/modules/traces/ingest/otlp-schema.ts';
import { databaseKinds, useProjectApp, type ProjectApp } from '../support/harness.ts';

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

describe.each(databaseKinds)('the LangWatch Python SDK’s spans (%s)', (kind) => {
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
