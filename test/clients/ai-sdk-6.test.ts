/**
 * The Vercel AI SDK 6 (`ai` with `@ai-sdk/openai` 3) with `experimental_telemetry`, through
 * the OpenTelemetry Node tracer provider, to Spyglass. PGlite only: the tracer provider is a
 * process-wide global, and the database is not what this file tests.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { trace } from '@opentelemetry/api';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { generateText, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeServer } from '../evaluators/fake-servers.ts';
import { startApp, type TestApp } from '../support/harness.ts';
import { registerExporter } from './ai-sdk-shared.ts';
import {
  ANSWER,
  expectFailed,
  expectFirstToken,
  expectMessages,
  expectReportedUsage,
  llmSpan,
  PROMPTS,
  REQUEST_MODEL,
  RESPONSE_MODEL,
  startFakeOpenAI,
  storedTrace,
} from './support.ts';

describe('Vercel AI SDK 6 with experimental_telemetry', () => {
  let t: TestApp;
  let fake: FakeServer;
  let provider: NodeTracerProvider;
  const ids = { plain: '', streamed: '', failing: '' };

  beforeAll(async () => {
    t = await startApp('pglite');
    fake = await startFakeOpenAI();
    provider = registerExporter(t, 'ai-sdk-6-client-test');
    const openai = createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'sk-test' });
    const telemetry = { experimental_telemetry: { isEnabled: true, functionId: 'fidelity' } };
    const tracer = trace.getTracer('app');
    const inRoot = (name: string, key: keyof typeof ids, fn: () => Promise<unknown>) =>
      tracer.startActiveSpan(name, async (span) => {
        ids[key] = span.spanContext().traceId;
        try {
          await fn();
        } catch {
          /* the failing call: its span records the error */
        } finally {
          span.end();
        }
      });
    await inRoot('plain', 'plain', () => generateText({ model: openai.chat(REQUEST_MODEL), prompt: PROMPTS.plain, ...telemetry }));
    await inRoot('streamed', 'streamed', async () => {
      const result = streamText({ model: openai.chat(REQUEST_MODEL), prompt: PROMPTS.streamed, ...telemetry });
      for await (const _ of result.textStream) void _;
    });
    await inRoot('failing', 'failing', () => generateText({ model: openai.chat(REQUEST_MODEL), prompt: PROMPTS.failing, maxRetries: 0, ...telemetry }));
    await provider.forceFlush();
  });
  afterAll(async () => {
    await provider?.shutdown();
    await fake?.close();
    await t?.close();
  });

  it('plain call: the doGenerate step is the llm span, with model, messages, tokens (cached, reasoning) and cost', async () => {
    const stored = await storedTrace(t, ids.plain);
    expect(stored.spans.map((s) => s.type).sort()).toEqual(['chain', 'llm', 'span']);
    const span = llmSpan(stored);
    expect(span.model).toBe(RESPONSE_MODEL);
    expectMessages(span.input, [['user', PROMPTS.plain]]);
    expectMessages(span.output, [['assistant', ANSWER]]);
    expectReportedUsage(span, { prompt: 11, completion: 7, cached: 4, reasoning: 3 });
    // The outer ai.generateText span repeats the usage: counted once on the trace.
    expect(stored.metrics).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 });
  });

  it('streamed call: messages, tokens and the first-token time (ai.response.msToFirstChunk)', async () => {
    const stored = await storedTrace(t, ids.streamed);
    const span = llmSpan(stored);
    expect(span.model).toBe(RESPONSE_MODEL);
    expectMessages(span.input, [['user', PROMPTS.streamed]]);
    expectMessages(span.output, [['assistant', ANSWER]]);
    // The AI SDK reports zero cached and reasoning tokens when the provider's usage has none.
    expectReportedUsage(span, { prompt: 11, completion: 7, cached: 0, reasoning: 0 });
    expectFirstToken(span);
    expect(stored.metrics.first_token_ms).not.toBeNull();
  });

  it('failing call: the llm span keeps its model and error, with no tokens and no cost', async () => {
    const stored = await storedTrace(t, ids.failing);
    const span = llmSpan(stored);
    expect(span.model).toBe(REQUEST_MODEL);
    expectMessages(span.input, [['user', PROMPTS.failing]]);
    expect(span.error?.message).toMatch(/error while processing/);
    expect(span.metrics).toMatchObject({ prompt_tokens: null, completion_tokens: null, tokens_estimated: false, cost: null });
    expectFailed(stored, /error while processing/);
  });
});
