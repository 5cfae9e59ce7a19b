import * as grpc from '@grpc/grpc-js';
import { expect } from 'vitest';
import { ExportTraceServiceRequestType } from '../../src/modules/traces/ingest/otlp-schema.ts';
import type { TestApp } from '../support/harness.ts';
import { upload } from '../datasets/support.ts';
import { asBrowser, inviteAndAccept } from '../support/sessions.ts';
import { startFakeServer, type FakeServer } from '../evaluators/fake-servers.ts';
import type { markers } from './markers.ts';

type Markers = ReturnType<typeof markers>;
const T0 = Date.parse('2026-11-22T09:00:00Z');
const str = (stringValue: string) => ({ stringValue });
const nanos = (ms: number) => String(BigInt(ms) * 1_000_000n);

/**
 * A loopback OpenAI-compatible model whose every answer repeats the markers: what the
 * playground and the server's experiment runs record of the call (the model's output) carries
 * them too. The app under test gets its address in `env`.
 */
export async function startMarkerModel(m: Markers): Promise<{ model: FakeServer; env: Record<string, string> }> {
  const model = await startFakeServer();
  model.fallback = () => ({
    kind: 'json',
    body: {
      id: 'chatcmpl-marker',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-4o-mini-2024-07-18',
      choices: [{ index: 0, message: { role: 'assistant', content: `Charged ${m.card}; the receipt went to ${m.email}, we will call ${m.phone}.` }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 40, completion_tokens: 20, total_tokens: 60 },
    },
  });
  return { model, env: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${model.url}/v1` } };
}

/**
 * Sends the markers through every way data comes in: OTLP traces and logs, the collector, an
 * annotation comment, the comment of an annotation carrying scores (made and edited), dataset
 * records (added, replaced, uploaded, made from a trace), an experiment's logged rows, outputs
 * and evaluation details, and the traces Spyglass records of its own model calls: a prompt
 * run from the playground and an experiment the server runs (startMarkerModel's model
 * answering both). Answers where they should now be read back as placeholders.
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
  // A score's comment: the comment of the annotation that carries it, made and then edited.
  const config = await t.request('POST', '/api/score-configs', { token: key, body: { name: `Helpful ${prefix}`, kind: 'numeric', min: 0, max: 5 } });
  ok(config, 201);
  const scored = await t.request('POST', `/api/annotations/trace/${collected}`, { token: key, body: { comment: `Score 1: mailed ${m.email}`, isThumbsUp: true, scores: [{ configId: config.body.data.id, value: 1 }] } });
  ok(scored);
  expect(scored.body.data.scores).toHaveLength(1);
  const scoreComment = await t.request('PATCH', `/api/annotations/${scored.body.data.id}`, { token: key, body: { comment: `Score 1 because of ${m.sentence}`, isThumbsUp: true } });
  ok(scoreComment);
  // And a reviewer's: completing a review queue item with a score and a comment makes the annotation.
  const reviewer = await inviteAndAccept(t, t.creds.adminApiKey, { email: `reviewer-${prefix}@privacy.test`, role: 'MEMBER' });
  const queue = await t.request('POST', '/api/queues', { token: key, body: { name: `Privacy ${prefix}`, scoreConfigIds: [config.body.data.id], memberUserIds: [reviewer.userId] } });
  ok(queue, 201);
  ok(await t.request('POST', `/api/queues/${queue.body.data.id}/items`, { token: key, body: { items: [{ traceId: collected }] } }));
  const claimed = await t.request('POST', `/api/queues/${queue.body.data.id}/next`, asBrowser(reviewer, { projectId: t.creds.project.id }));
  ok(claimed);
  const reviewed = await t.request('POST', `/api/queues/${queue.body.data.id}/items/${claimed.body.data.id}/complete`, {
    ...asBrowser(reviewer, { projectId: t.creds.project.id }),
    body: { scores: [{ configId: config.body.data.id, value: 4 }], comment: `Reviewed: ${m.sentence}` },
  });
  ok(reviewed);

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
  // The playground's own trace: a prompt run with the markers in its variables and in the model's answer.
  ok(
    await t.request('POST', '/api/prompts', {
      token: key,
      body: { handle: `privacy-${prefix}`, prompt: 'Answer the customer.', messages: [{ role: 'user', content: '{{question}}' }], inputs: [{ identifier: 'question', type: 'str' }], model: 'openai/gpt-4o-mini' },
    }),
  );
  const played = await t.request('POST', `/api/prompts/privacy-${prefix}/run`, { token: key, body: { variables: { question: m.sentence } } });
  ok(played);
  const playgroundTrace = played.body.trace_id as string;
  // A server run's own traces: an experiment of the same prompt on rows carrying the markers.
  const experiment = `privacy-run-${prefix}`;
  ok(await t.request('PUT', `/api/experiments/${experiment}/definition`, { token: key, body: { targets: [{ id: 'reply', type: 'prompt', prompt: `privacy-${prefix}` }] } }));
  const started = await t.request('POST', `/api/experiments/${experiment}/run`, { token: key, body: { data: [{ question: m.sentence }] } });
  ok(started);
  const runId = started.body.runId as string;
  for (const deadline = Date.now() + 60_000; ; ) {
    const status = await t.request('GET', `/api/experiments/runs/${runId}?experimentSlug=${experiment}`, { token: key });
    ok(status);
    if (status.body.status !== 'running') break;
    if (Date.now() > deadline) throw new Error(`run ${runId} still running: ${status.text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const results = await t.request('GET', `/api/experiments/runs/${runId}/results?experimentSlug=${experiment}`, { token: key });
  ok(results);
  expect(results.body.dataset).toHaveLength(1);
  expect(results.body.dataset[0].error, results.text).toBeNull();
  const runTrace = results.body.dataset[0].traceId as string;

  // An agent simulation as LangWatch's Scenario package reports it: the conversation and the judge's reasoning.
  const simulation = { batchRunId: `batch-${prefix}`, scenarioId: 'privacy', scenarioRunId: `sim-${prefix}`, scenarioSetId: 'privacy' };
  ok(await t.request('POST', '/api/scenario-events', { token: key, body: { type: 'SCENARIO_RUN_STARTED', timestamp: T0, ...simulation, metadata: { name: 'Privacy', description: m.sentence } } }), 201);
  ok(
    await t.request('POST', '/api/scenario-events', {
      token: key,
      body: { type: 'SCENARIO_MESSAGE_SNAPSHOT', timestamp: T0 + 1, ...simulation, messages: [{ id: 'u1', role: 'user', content: m.sentence }, { id: 'a1', role: 'assistant', content: `Mailed ${m.email}` }] },
    }),
    201,
  );
  ok(
    await t.request('POST', '/api/scenario-events', {
      token: key,
      body: { type: 'SCENARIO_RUN_FINISHED', timestamp: T0 + 2, ...simulation, status: 'SUCCESS', results: { verdict: 'success', reasoning: `It called ${m.phone}`, metCriteria: ['helps'], unmetCriteria: [] } },
    }),
    201,
  );

  // OTLP over gRPC: one span whose prompt and attribute carry the markers.
  const grpcTrace = traceId(2);
  const exported = await grpcExport(await t.app.otlpGrpc.listen(0, '127.0.0.1'), key, grpcTrace, m.sentence, m.email);
  expect(exported).toBeNull();
  return { otlpTrace, grpcTrace, collected, slug, scoredAnnotation: scored.body.data.id as string, reviewedAnnotation: reviewed.body.annotation.id as string, playgroundTrace, runTrace, experiment, runId, simulationRun: simulation.scenarioRunId };
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
