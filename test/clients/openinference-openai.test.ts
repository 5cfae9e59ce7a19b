/**
 * The OpenTelemetry Node SDK with OpenInference's OpenAI instrumentation
 * (@arizeai/openinference-instrumentation-openai) and the official `openai` client, exporting
 * OTLP/protobuf to Spyglass. PGlite only: the SDK registers process-wide globals once, and the
 * database is not what this file tests.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  ANSWER,
  expectFailed,
  expectMessages,
  expectReportedUsage,
  inAppSpan,
  llmSpan,
  PROMPTS,
  RESPONSE_MODEL,
  REQUEST_MODEL,
  storedTrace,
  useClientTest,
} from './support.ts';

describe('OpenTelemetry Node SDK + OpenInference OpenAI instrumentation', () => {
  const c = useClientTest(async ({ t, fake, ids }) => {
    const processor = new SimpleSpanProcessor(
      // 60 s, not the exporter's 10 s: the first export reaches an app just started on two shared cores.
      new OTLPTraceExporter({ url: `${t.baseUrl}/api/otel/v1/traces`, headers: { authorization: `Bearer ${t.creds.projectApiKey}` }, timeoutMillis: 60_000 }),
    );
    const instrumentation = new OpenAIInstrumentation();
    const sdk = new NodeSDK({ serviceName: 'openinference-client-test', spanProcessors: [processor], instrumentations: [instrumentation] });
    sdk.start();
    // ESM imports are not hooked by require-time patching: OpenInference documents this call.
    instrumentation.manuallyInstrument(OpenAI);
    const client = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
    await inAppSpan(ids, 'plain', () => client.chat.completions.create({ model: REQUEST_MODEL, messages: [{ role: 'user', content: PROMPTS.plain }] }));
    await inAppSpan(ids, 'streamed', async () => {
      const stream = await client.chat.completions.create({
        model: REQUEST_MODEL,
        messages: [{ role: 'user', content: PROMPTS.streamed }],
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const _ of stream) void _;
    });
    await inAppSpan(ids, 'failing', () => client.chat.completions.create({ model: REQUEST_MODEL, messages: [{ role: 'user', content: PROMPTS.failing }] }));
    // The streamed span ends when the instrumentation has read its copy of the stream.
    await new Promise((r) => setTimeout(r, 100));
    await processor.forceFlush();
    return () => sdk.shutdown();
  });

  it('plain call: an llm span with the response model, messages, reported tokens (cached, reasoning) and cost', async () => {
    const span = llmSpan(await storedTrace(c.t, c.ids.plain));
    expect(span.model).toBe(RESPONSE_MODEL);
    expectMessages(span.input, [['user', PROMPTS.plain]]);
    expectMessages(span.output, [['assistant', ANSWER]]);
    expectReportedUsage(span, { prompt: 11, completion: 7, cached: 4, reasoning: 3 });
    expect(span.error).toBeNull();
  });

  it('streamed call: messages; no usage from the instrumentation for streams, so Spyglass estimates (and says so)', async () => {
    const stored = await storedTrace(c.t, c.ids.streamed);
    const span = llmSpan(stored);
    // OpenInference keeps the request model for streams and records neither usage nor first-token time.
    expect(span.model).toBe(REQUEST_MODEL);
    expectMessages(span.input, [['user', PROMPTS.streamed]]);
    expectMessages(span.output, [['assistant', ANSWER]]);
    // o200k: "Say hi" 2 + role 1 + 3 framing + 3 priming = 9; "Hello there" = 2, no framing.
    expect(span.metrics).toMatchObject({ prompt_tokens: 9, completion_tokens: 2, tokens_estimated: true });
    expect(span.metrics.cost).toBeGreaterThan(0);
    expect(span.timestamps.first_token_at).toBeNull();
  });

  it('failing call: the error is on the trace, nothing is charged', async () => {
    // OpenInference's JS instrumentation (4.2.x) never ends the span of a call whose promise
    // rejects, so the failed call itself is not exported; the application's span carries the error.
    const stored = await storedTrace(c.t, c.ids.failing);
    expect(stored.spans.map((s) => s.type)).not.toContain('llm');
    expectFailed(stored, /500/);
    expect(c.fake.requests.filter((r) => JSON.stringify(r.body).includes('FAIL'))).toHaveLength(1);
  });
});
