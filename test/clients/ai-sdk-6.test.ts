/**
 * The Vercel AI SDK 6 (`ai` with `@ai-sdk/openai` 3) with `experimental_telemetry`, through
 * the OpenTelemetry Node tracer provider, to Spyglass. PGlite only: the tracer provider is a
 * process-wide global, and the database is not what this file tests.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { registerExporter } from './ai-sdk-shared.ts';
import {
  ANSWER,
  expectFailed,
  expectFirstToken,
  expectMessages,
  expectReportedUsage,
  inAppSpan,
  llmSpan,
  PROMPTS,
  REQUEST_MODEL,
  RESPONSE_MODEL,
  storedTrace,
  useClientTest,
} from './support.ts';

describe('Vercel AI SDK 6 with experimental_telemetry', () => {
  const c = useClientTest(async ({ t, fake, ids }) => {
    const provider = registerExporter(t, 'ai-sdk-6-client-test');
    const openai = createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'sk-test' });
    const telemetry = { experimental_telemetry: { isEnabled: true, functionId: 'fidelity' } };
    await inAppSpan(ids, 'plain', () => generateText({ model: openai.chat(REQUEST_MODEL), prompt: PROMPTS.plain, ...telemetry }));
    await inAppSpan(ids, 'streamed', async () => {
      const result = streamText({ model: openai.chat(REQUEST_MODEL), prompt: PROMPTS.streamed, ...telemetry });
      for await (const _ of result.textStream) void _;
    });
    await inAppSpan(ids, 'failing', () => generateText({ model: openai.chat(REQUEST_MODEL), prompt: PROMPTS.failing, maxRetries: 0, ...telemetry }));
    await provider.forceFlush();
    return () => provider.shutdown();
  });

  it('plain call: the doGenerate step is the llm span, with model, messages, tokens (cached, reasoning) and cost', async () => {
    const stored = await storedTrace(c.t, c.ids.plain);
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
    const stored = await storedTrace(c.t, c.ids.streamed);
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
    const stored = await storedTrace(c.t, c.ids.failing);
    const span = llmSpan(stored);
    expect(span.model).toBe(REQUEST_MODEL);
    expectMessages(span.input, [['user', PROMPTS.failing]]);
    expect(span.error?.message).toMatch(/error while processing/);
    expect(span.metrics).toMatchObject({ prompt_tokens: null, completion_tokens: null, tokens_estimated: false, cost: null });
    expectFailed(stored, /error while processing/);
  });
});
