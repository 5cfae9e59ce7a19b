/**
 * What every real-client test shares: a loopback OpenAI-compatible server with a fixed
 * script (the fake at the edge of the world), the three calls each client makes, and the
 * checks on the trace Spyglass stored.
 *
 * The script: every answer reports 11 prompt and 7 completion tokens; a prompt containing
 * CACHED also reports 4 cached prompt tokens and 3 reasoning tokens; `stream: true` answers
 * as server-sent events, the first chunk at once and the rest FIRST_CHUNK_GAP_MS later
 * (with the usage chunk when `stream_options.include_usage` asks for it); a prompt
 * containing FAIL answers 500.
 */
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, expect } from 'vitest';
import { computeCost } from '../../src/modules/traces/index.ts';
import { errorReply, startFakeServer, type FakeServer, type RecordedRequest, type Reply } from '../evaluators/fake-servers.ts';
import { startApp, type TestApp } from '../support/harness.ts';

export const REQUEST_MODEL = 'gpt-4o-mini';
export const RESPONSE_MODEL = 'gpt-4o-mini-2024-07-18';
export const ANSWER = 'Hello there';
export const FIRST_CHUNK_GAP_MS = 60;

/** The prompts of the three calls every client makes. */
export const PROMPTS = { plain: 'Say hi CACHED', streamed: 'Say hi', failing: 'Say hi FAIL' } as const;

function usage(details: boolean) {
  return {
    prompt_tokens: 11,
    completion_tokens: 7,
    total_tokens: 18,
    ...(details ? { prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 3 } } : {}),
  };
}

function chatScript(req: RecordedRequest): Reply {
  const body = req.body as { messages?: unknown; stream?: boolean; stream_options?: { include_usage?: boolean } };
  const prompt = JSON.stringify(body.messages ?? '');
  if (prompt.includes('FAIL')) return errorReply(500, 'The server had an error while processing your request.');
  const details = prompt.includes('CACHED');
  const base = { id: 'chatcmpl-fidelity', created: 1_700_000_000, model: RESPONSE_MODEL };
  if (body.stream) {
    const chunk = (delta: object, finish: string | null) => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
    return {
      kind: 'sse',
      gapMs: FIRST_CHUNK_GAP_MS,
      chunks: [
        chunk({ role: 'assistant', content: 'Hello' }, null),
        chunk({ content: ' there' }, 'stop'),
        ...(body.stream_options?.include_usage ? [{ ...base, object: 'chat.completion.chunk', choices: [], usage: usage(details) }] : []),
      ],
    };
  }
  return {
    kind: 'json',
    body: {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
      usage: usage(details),
    },
  };
}

export async function startFakeOpenAI(): Promise<FakeServer> {
  const fake = await startFakeServer();
  fake.fallback = chatScript;
  return fake;
}

/** The trace id of each of the three calls, filled in as the client makes them. */
export interface CallIds {
  plain: string;
  streamed: string;
  failing: string;
}

export interface ClientTest {
  t: TestApp;
  fake: FakeServer;
  ids: CallIds;
}

/**
 * A client test file's fixture: before its tests, Spyglass (PGlite: the clients register
 * process-wide globals, and the database is not what these files test) and the fake provider
 * start, then `makeCalls` sets the client up and makes its calls; after them, the teardown
 * `makeCalls` returns runs before both close.
 */
export function useClientTest(makeCalls: (test: ClientTest) => Promise<(() => Promise<unknown>) | void>): ClientTest {
  const test = { ids: { plain: '', streamed: '', failing: '' } } as ClientTest;
  let teardown: (() => Promise<unknown>) | void;
  beforeAll(async () => {
    test.t = await startApp('pglite');
    test.fake = await startFakeOpenAI();
    teardown = await makeCalls(test);
  });
  afterAll(async () => {
    await teardown?.();
    await test.fake?.close();
    await test.t?.close();
  });
  return test;
}

/**
 * The application's own span around one call, as an instrumented app has: it records the
 * call's trace id, and a failure (some instrumentations end nothing of a rejected call, so
 * this span is what carries the error). The failure is not rethrown.
 */
export function inAppSpan(ids: CallIds, call: keyof CallIds, fn: () => Promise<unknown>): Promise<void> {
  return trace.getTracer('app').startActiveSpan(`${call} call`, async (span) => {
    ids[call] = span.spanContext().traceId;
    try {
      await fn();
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    } finally {
      span.end();
    }
  });
}

export interface StoredSpan {
  span_id: string;
  type: string;
  model: string | null;
  input: { type: string; value: { role: string; content: unknown }[] } | null;
  output: { type: string; value: { role: string; content: unknown }[] } | null;
  timestamps: { started_at: number; finished_at: number; first_token_at: number | null };
  metrics: {
    prompt_tokens: number | null;
    completion_tokens: number | null;
    cached_input_tokens: number | null;
    reasoning_tokens: number | null;
    tokens_estimated: boolean;
    cost: number | null;
  };
  error: { message: string } | null;
}

export interface StoredTrace {
  trace_id: string;
  error: { message: string } | null;
  metrics: { first_token_ms: number | null; total_cost: number | null; prompt_tokens: number | null; completion_tokens: number | null };
  spans: StoredSpan[];
}

export async function storedTrace(t: TestApp, traceId: string): Promise<StoredTrace> {
  const res = await t.request('GET', `/api/trace/${traceId}`, { token: t.creds.projectApiKey });
  expect(res.status, `trace ${traceId}: ${res.text}`).toBe(200);
  return res.body as StoredTrace;
}

/** The trace's one LLM span (the provider call). */
export function llmSpan(trace: StoredTrace): StoredSpan {
  const llm = trace.spans.filter((s) => s.type === 'llm');
  expect(llm, JSON.stringify(trace.spans.map((s) => [s.type, s.model]))).toHaveLength(1);
  return llm[0];
}

/** Text of a message, whatever shape its content has. */
export function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : (p?.text ?? p?.content ?? ''))).join('');
  return '';
}

export function expectMessages(payload: StoredSpan['input'], expected: [role: string, text: string][]) {
  expect(payload?.type).toBe('chat_messages');
  expect(payload!.value.map((m) => [m.role, text(m.content)])).toEqual(expected);
}

/** USD of a call to the response model, as the price table has it. */
export function price(promptTokens: number, completionTokens: number, cached = 0, reasoning = 0): number {
  return computeCost({ model: RESPONSE_MODEL, promptTokens, completionTokens, cachedInputTokens: cached, reasoningTokens: reasoning })!.amount;
}

/** Tokens and cost as reported (never estimated by Spyglass), priced from the table. */
export function expectReportedUsage(span: StoredSpan, usage: { prompt: number; completion: number; cached: number | null; reasoning: number | null }) {
  expect(span.metrics).toMatchObject({
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    cached_input_tokens: usage.cached,
    reasoning_tokens: usage.reasoning,
    tokens_estimated: false,
  });
  expect(span.metrics.cost).toBeCloseTo(price(usage.prompt, usage.completion, usage.cached ?? 0, usage.reasoning ?? 0), 12);
}

/** The first token lies after the start, by about the gap the fake server waits before the second chunk (less than it). */
export function expectFirstToken(span: StoredSpan) {
  const { started_at: start, first_token_at: first, finished_at: end } = span.timestamps;
  expect(first).not.toBeNull();
  expect(first!).toBeGreaterThanOrEqual(start);
  expect(first!).toBeLessThanOrEqual(end);
  expect(end - first!).toBeGreaterThanOrEqual(FIRST_CHUNK_GAP_MS - 15);
}

/** A failed call: the error on the trace, no tokens, no cost. */
export function expectFailed(trace: StoredTrace, messagePart: RegExp) {
  expect(trace.error?.message).toMatch(messagePart);
  expect(trace.metrics.total_cost).toBeNull();
  for (const s of trace.spans) expect(s.metrics.cost).toBeNull();
}
