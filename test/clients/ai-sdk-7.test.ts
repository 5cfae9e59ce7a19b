/**
 * The Vercel AI SDK 7 (`ai` 7 with `@ai-sdk/openai` 4, installed under the aliases `ai-v7` and
 * `ai-sdk-openai-v4` beside the AI SDK 6 the evaluators use) with `@ai-sdk/otel` in its default
 * semantic-conventions mode: spans follow the OpenTelemetry GenAI conventions. These packages
 * declare Node >= 22; on Node 20 everything this file uses runs (the engines warning at install
 * is the only difference). PGlite only: telemetry is registered process-wide.
 */
import { OpenTelemetry } from '@ai-sdk/otel';
import { generateText, registerTelemetry, streamText } from 'ai-v7';
import { createOpenAI } from 'ai-sdk-openai-v4';
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

describe('Vercel AI SDK 7 with @ai-sdk/otel (semantic conventions)', () => {
  const c = useClientTest(async ({ t, fake, ids }) => {
    const provider = registerExporter(t, 'ai-sdk-7-client-test');
    registerTelemetry(new OpenTelemetry());
    const openai = createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'sk-test' });
    await inAppSpan(ids, 'plain', () => generateText({ model: openai.chat(REQUEST_MODEL), prompt: PROMPTS.plain }));
    await inAppSpan(ids, 'streamed', async () => {
      const result = streamText({ model: openai.chat(REQUEST_MODEL), prompt: PROMPTS.streamed });
      for await (const _ of result.textStream) void _;
    });
    await inAppSpan(ids, 'failing', () => generateText({ model: openai.chat(REQUEST_MODEL), prompt: PROMPTS.failing, maxRetries: 0 }));
    await provider.forceFlush();
    return () => provider.shutdown();
  });

  it('plain call: the chat span is the llm span, with model, messages, tokens (cached) and cost; the agent span adds nothing', async () => {
    const stored = await storedTrace(c.t, c.ids.plain);
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
    const stored = await storedTrace(c.t, c.ids.streamed);
    const span = llmSpan(stored);
    expect(span.model).toBe(RESPONSE_MODEL);
    expectMessages(span.input, [['user', PROMPTS.streamed]]);
    expectMessages(span.output, [['assistant', ANSWER]]);
    expectReportedUsage(span, { prompt: 11, completion: 7, cached: 0, reasoning: null });
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
