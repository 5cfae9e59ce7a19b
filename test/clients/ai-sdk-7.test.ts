/**
 * The Vercel AI SDK 7 (`ai` 7 with `@ai-sdk/openai` 4, installed under the aliases `ai-v7` and
 * `ai-sdk-openai-v4` beside the AI SDK 6 the evaluators use) with `@ai-sdk/otel` in its default
 * semantic-conventions mode: spans follow the OpenTelemetry GenAI conventions. These packages
 * declare Node >= 22; on Node 20 everything this file uses runs (the engines warning at install
 * is the only difference). PGlite only: telemetry is registered process-wide.
 */
import { OpenTelemetry } from '@ai-sdk/otel';
import { trace } from '@opentelemetry/api';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { generateText, registerTelemetry, streamText } from 'ai-v7';
import { createOpenAI } from 'ai-sdk-openai-v4';
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

describe('Vercel AI SDK 7 with @ai-sdk/otel (semantic conventions)', () => {
  let t: TestApp;
  let fake: FakeServer;
  let provider: NodeTracerProvider;
  const ids = { plain: '', streamed: '', failing: '' };

  beforeAll(async () => {
    t = await startApp('pglite');
    fake = await startFakeOpenAI();
    provider = registerExporter(t, 'ai-sdk-7-client-test');
    registerTelemetry(new OpenTelemetry());
    const openai = createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'sk-test' });
    const tracer = trace.getTracer('app');
    const inRoot = (name: string, key: keyof typeof ids, fn: () => Promise<unknown>) =>
      tracer.startActiveSpan(name, async (span) => {
        ids[key] = span.spanContext().traceId;
        try {
          await fn();
        } catch {
          /* the failing call: its spans record the error */
        } finally {
          span.end();
        }
      });
    await inRoot('plain', 'plain', () => generateText({ model: openai.chat(REQUEST_MODEL), prompt: PROMPTS.plain }));
    await inRoot('streamed', 'streamed', async () => {
      const result = streamText({ model: openai.chat(REQUEST_MODEL), prompt: PROMPTS.streamed });
      for await (const _ of result.textStream) void _;
    });
    await inRoot('failing', 'failing', () => generateText({ model: openai.chat(REQUEST_MODEL), prompt: PROMPTS.failing, maxRetries: 0 }));
    await provider.forceFlush();
  });
  afterAll(async () => {
    await provider?.shutdown();
    await fake?.close();
    await t?.close();
  });

  it('plain call: the chat span is the llm span, with model, messages, tokens (cached) and cost; the agent span adds nothing', async () => {
    const stored = await storedTrace(t, ids.plain);
    expect(stored.spans.map((s) => s.type).sort()).toEqual(['agent', 'llm', 'span', 'span']);
    const span = llmSpan(stored);
    expect(span.model).toBe(RESPONSE_MODEL);
    expectMessages(span.input, [['user', PROMPTS.plain]]);
    expectMessages(span.output, [['assistant', ANSWER]]);
    // @ai-sdk/otel writes no reasoning-token attribute in this mode.
    expectReportedUsage(span, { prompt: 11, completion: 7, cached: 4, reasoning: null });
    expect(stored.metrics).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 });
  });

  it('streamed call: the first-token time from gen_ai.client.operation.time_to_first_chunk (seconds)', async () => {
    const stored = await storedTrace(t, ids.streamed);
    const span = llmSpan(stored);
    expect(span.model).toBe(RESPONSE_MODEL);
    expectMessages(span.input, [['user', PROMPTS.streamed]]);
    expectMessages(span.output, [['assistant', ANSWER]]);
    expectReportedUsage(span, { prompt: 11, completion: 7, cached: 0, reasoning: null });
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
