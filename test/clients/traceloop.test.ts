/**
 * OpenLLMetry: `@traceloop/node-server-sdk` with its OpenAI instrumentation and the official
 * `openai` client, pointed at Spyglass as its base URL (its exporter posts OTLP/protobuf to
 * `<baseUrl>/v1/traces` with the API key as a Bearer token). PGlite only: the SDK initializes
 * process-wide once, and the database is not what this file tests.
 */
import { trace } from '@opentelemetry/api';
import * as traceloop from '@traceloop/node-server-sdk';
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
  REQUEST_MODEL,
  RESPONSE_MODEL,
  storedTrace,
  useClientTest,
} from './support.ts';

describe('OpenLLMetry (@traceloop/node-server-sdk) with the openai client', () => {
  const c = useClientTest(async ({ t, fake, ids }) => {
    traceloop.initialize({
      appName: 'traceloop-client-test',
      baseUrl: t.baseUrl,
      apiKey: t.creds.projectApiKey,
      disableBatch: true,
      silenceInitializationMessage: true,
      // Its types name the CommonJS build of `openai`; this ESM import is the same class.
      instrumentModules: { openAI: OpenAI as never },
    });
    const client = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
    const workflow = (key: keyof typeof ids, fn: () => Promise<unknown>) =>
      traceloop.withWorkflow({ name: `${key} call` }, async () => {
        ids[key] ||= trace.getActiveSpan()!.spanContext().traceId;
        return fn();
      });
    await workflow('plain', () => client.chat.completions.create({ model: REQUEST_MODEL, messages: [{ role: 'user', content: PROMPTS.plain }] }));
    await workflow('streamed', async () => {
      const stream = await client.chat.completions.create({
        model: REQUEST_MODEL,
        messages: [{ role: 'user', content: PROMPTS.streamed }],
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const _ of stream) void _;
    });
    // OpenLLMetry ends neither the span of a rejected call nor the workflow around it (both
    // end only when the promise resolves): the application's own span records the failure.
    await inAppSpan(ids, 'failing', () =>
      workflow('failing', () => client.chat.completions.create({ model: REQUEST_MODEL, messages: [{ role: 'user', content: PROMPTS.failing }] })),
    );
    await traceloop.forceFlush();
  });

  it('plain call: an llm span under the workflow, with the response model, messages, reported tokens and cost', async () => {
    const stored = await storedTrace(c.t, c.ids.plain);
    expect(stored.spans.map((s) => s.type).sort()).toEqual(['llm', 'workflow']);
    const span = llmSpan(stored);
    expect(span.model).toBe(RESPONSE_MODEL);
    expectMessages(span.input, [['user', PROMPTS.plain]]);
    expectMessages(span.output, [['assistant', ANSWER]]);
    // OpenLLMetry JS reports prompt and completion tokens only (no cached or reasoning counts).
    expectReportedUsage(span, { prompt: 11, completion: 7, cached: null, reasoning: null });
  });

  it('streamed call: messages and the tokens OpenLLMetry counts itself for streams', async () => {
    const span = llmSpan(await storedTrace(c.t, c.ids.streamed));
    expect(span.model).toBe(RESPONSE_MODEL);
    expectMessages(span.input, [['user', PROMPTS.streamed]]);
    expectMessages(span.output, [['assistant', ANSWER]]);
    // Its own tiktoken counts of the content ("Say hi" 2, "Hello there" 2), sent as usage:
    // stored as sent, not estimated again. It sends no first-token time.
    expectReportedUsage(span, { prompt: 2, completion: 2, cached: null, reasoning: null });
    expect(span.timestamps.first_token_at).toBeNull();
  });

  it('failing call: the error is on the trace, nothing is charged', async () => {
    // Neither OpenLLMetry span of the failed call is ever ended, so neither is exported.
    const stored = await storedTrace(c.t, c.ids.failing);
    expect(stored.spans.map((s) => s.type)).toEqual(['span']);
    expectFailed(stored, /500/);
  });
});
