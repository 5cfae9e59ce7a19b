import { z } from 'zod';
import { badRequest } from '../../platform/errors.ts';
import type { ChatMessage, NormalizedSpan, SpanPayload, SpanType } from './ingest/index.ts';

/** The JSON trace of clients without OpenTelemetry (POST /api/collector). */
const SPAN_TYPES = [
  'llm', 'chain', 'tool', 'agent', 'rag', 'retriever', 'embedding', 'prompt', 'guardrail', 'evaluation',
  'workflow', 'task', 'module', 'server', 'client', 'producer', 'consumer', 'span',
] as const satisfies readonly SpanType[];

const id = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, '1..128 letters, digits or _ . : -');
// 2000-01-01 .. 2100-01-01 in ms: catches seconds or nanoseconds sent by mistake.
const epochMs = z.number().int().min(946_684_800_000, 'must be epoch milliseconds (this looks like seconds)').max(4_102_444_800_000, 'must be epoch milliseconds (this looks like micro- or nanoseconds)');

/**
 * A chat message as the LangWatch SDKs send it (OpenAI's shape, `role` optional). What every
 * reader of a conversation relies on (the summary, token estimates, the web app) is checked
 * here, so a message it cannot read is a 400 naming it; other fields are kept as they came.
 */
const chatMessage = z.looseObject({
  role: z.string().max(200).optional(),
  content: z.union([z.string(), z.array(z.union([z.string(), z.looseObject({})])), z.null()]).optional(),
  tool_calls: z.array(z.looseObject({})).nullable().optional(),
  tool_call_id: z.string().nullable().optional(),
  name: z.string().nullable().optional(),
  function_call: z.looseObject({}).nullable().optional(),
});
type CollectorChatMessage = z.infer<typeof chatMessage>;

const payload = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('chat_messages'), value: z.array(chatMessage) }),
    z.object({ type: z.enum(['text', 'json', 'raw']), value: z.unknown() }),
  ])
  .nullable()
  .optional();

export const collectorSpanSchema = z.object({
  span_id: id,
  trace_id: id.optional(),
  parent_id: id.nullable().optional(),
  type: z.enum(SPAN_TYPES).default('span'),
  name: z.string().max(1000).nullable().optional(),
  model: z.string().max(300).nullable().optional(),
  vendor: z.string().max(100).nullable().optional(),
  input: payload,
  output: payload,
  params: z.record(z.string(), z.unknown()).optional(),
  metrics: z
    .object({
      prompt_tokens: z.number().int().nonnegative().nullable().optional(),
      completion_tokens: z.number().int().nonnegative().nullable().optional(),
      cached_input_tokens: z.number().int().nonnegative().nullable().optional(),
      reasoning_tokens: z.number().int().nonnegative().nullable().optional(),
      cost: z.number().nonnegative().nullable().optional(),
      tokens_estimated: z.boolean().optional(),
    })
    .optional(),
  error: z
    .object({ message: z.string().max(100_000), stacktrace: z.array(z.string()).max(1000).optional(), has_error: z.boolean().optional() })
    .nullable()
    .optional(),
  timestamps: z.object({ started_at: epochMs, finished_at: epochMs, first_token_at: epochMs.nullable().optional() }),
  attributes: z.record(z.string(), z.unknown()).optional(),
});

export const collectorBodySchema = z
  .object({
    trace_id: id,
    spans: z.array(collectorSpanSchema).min(1).max(10_000),
    metadata: z
      .looseObject({
        user_id: z.string().max(500).nullable().optional(),
        thread_id: z.string().max(500).nullable().optional(),
        customer_id: z.string().max(500).nullable().optional(),
        labels: z.array(z.string().max(200)).max(100).nullable().optional(),
        sdk_version: z.string().max(100).optional(),
        sdk_language: z.string().max(100).optional(),
      })
      .optional(),
  })
  .superRefine((body, ctx) => {
    body.spans.forEach((s, i) => {
      if (s.trace_id !== undefined && s.trace_id !== body.trace_id) {
        ctx.addIssue({ code: 'custom', path: ['spans', i, 'trace_id'], message: `differs from the body's trace_id ${body.trace_id}: one request carries one trace` });
      }
      if (s.timestamps.finished_at < s.timestamps.started_at) {
        ctx.addIssue({ code: 'custom', path: ['spans', i, 'timestamps', 'finished_at'], message: 'is before started_at' });
      }
      const ft = s.timestamps.first_token_at;
      if (ft !== null && ft !== undefined && (ft < s.timestamps.started_at || ft > s.timestamps.finished_at)) {
        ctx.addIssue({ code: 'custom', path: ['spans', i, 'timestamps', 'first_token_at'], message: 'must lie between started_at and finished_at' });
      }
    });
  })
  .meta({ id: 'CollectorTrace' });

export type CollectorBody = z.infer<typeof collectorBodySchema>;

/** Refuses a trace with a span time past `latestMs` (the server's clock plus tolerated skew), naming the field. */
export function checkCollectorTimes(body: CollectorBody, latestMs: number): void {
  body.spans.forEach((s, i) => {
    for (const key of ['started_at', 'finished_at'] as const) {
      if (s.timestamps[key] > latestMs) {
        const field = `spans.${i}.timestamps.${key}`;
        throw badRequest('time_in_future', `${field}: ${new Date(s.timestamps[key]).toISOString()} is more than a day ahead of the server's clock`, field);
      }
    }
  });
}

export function collectorSpans(body: CollectorBody): NormalizedSpan[] {
  const m = body.metadata ?? {};
  const { user_id, thread_id, customer_id, labels, sdk_version, sdk_language, ...extra } = m;
  return body.spans.map((s) => ({
    trace_id: body.trace_id,
    span_id: s.span_id,
    parent_id: s.parent_id ?? null,
    name: s.name ?? null,
    type: s.type,
    model: s.model ?? null,
    vendor: s.vendor ?? null,
    started_at: s.timestamps.started_at,
    finished_at: s.timestamps.finished_at,
    first_token_at: s.timestamps.first_token_at ?? null,
    params: s.params ?? {},
    metrics: {
      prompt_tokens: s.metrics?.prompt_tokens ?? null,
      completion_tokens: s.metrics?.completion_tokens ?? null,
      cached_input_tokens: s.metrics?.cached_input_tokens ?? null,
      reasoning_tokens: s.metrics?.reasoning_tokens ?? null,
      tokens_estimated: s.metrics?.tokens_estimated ?? false,
      cost: s.metrics?.cost ?? null,
    },
    input: toPayload(s.input, 'user'),
    output: toPayload(s.output, 'assistant'),
    error: s.error ? { has_error: true, message: s.error.message, stacktrace: s.error.stacktrace ?? [] } : null,
    trace_metadata: {
      user_id: user_id ?? undefined,
      thread_id: thread_id ?? undefined,
      customer_id: customer_id ?? undefined,
      labels: labels ?? undefined,
      sdk_version,
      sdk_language,
      extra,
    },
    attributes: s.attributes ?? {},
    resource: {},
    scope: { name: 'collector', version: null },
    events: [],
    links: [],
    status: { code: s.error ? 'error' : 'unset', message: s.error?.message ?? null },
    kind: 'internal',
  }));
}

function toPayload(p: z.infer<typeof payload>, defaultRole: string): SpanPayload | null {
  if (!p) return null;
  if (p.type === 'chat_messages') return { type: 'chat_messages', value: p.value.map((m) => storedMessage(m, defaultRole)) };
  if ((p.type === 'text' || p.type === 'raw') && typeof p.value === 'string') return { type: 'text', value: p.value };
  return { type: 'json', value: p.value };
}

/**
 * A message as every stored conversation has it (role and content always there, the optional
 * fields absent rather than null). A message without a role gets the side's usual one, as the
 * OTLP mapping does for the same LangWatch payload.
 */
function storedMessage(m: CollectorChatMessage, defaultRole: string): ChatMessage {
  const { role, content, tool_calls, tool_call_id, name, ...rest } = m;
  return {
    ...rest,
    role: role ?? defaultRole,
    content: content ?? null,
    ...(tool_calls != null ? { tool_calls } : {}),
    ...(tool_call_id != null ? { tool_call_id } : {}),
    ...(name != null ? { name } : {}),
  };
}
