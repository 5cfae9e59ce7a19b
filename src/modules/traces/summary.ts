import { createHash } from 'node:crypto';
import { canonicalModelName, modelSearchNames } from './costs/index.ts';
import type { ChatMessage, SpanError, SpanPayload, TraceMetadataHints } from './ingest/types.ts';

/** The columns of a span that a trace summary is built from (never the big payloads). */
export interface SpanFacts {
  span_id: string;
  parent_id: string | null;
  type: string;
  model: string | null;
  started_at: number;
  finished_at: number;
  first_token_at: number | null;
  inserted_at: number;
  updated_at: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cached_input_tokens: number | null;
  reasoning_tokens: number | null;
  tokens_estimated: boolean;
  cost: number | null;
  has_error: boolean;
  error: SpanError | null;
  input_text: string | null;
  output_text: string | null;
  trace_meta: TraceMetadataHints | null;
}

export interface TraceSummary {
  trace_id: string;
  started_at: number;
  finished_at: number;
  inserted_at: number;
  updated_at: number;
  input: string | null;
  output: string | null;
  user_id: string | null;
  thread_id: string | null;
  customer_id: string | null;
  labels: string[];
  metadata: Record<string, unknown>;
  models: string[];
  /** What the search's model filter matches: normalized names and their snapshot families. */
  model_names: string[];
  /** The normalized names of the models its spans used (analytics group by these). */
  normalized_models: string[];
  span_types: string[];
  span_count: number;
  first_token_ms: number | null;
  total_time_ms: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cached_input_tokens: number | null;
  reasoning_tokens: number | null;
  tokens_estimated: boolean;
  total_cost: number | null;
  has_error: boolean;
  error: SpanError | null;
  search_text: string;
  indexing_md5: string;
}

const MAX_TRACE_TEXT = 256 * 1024;
const MAX_SEARCH_TEXT = 32 * 1024;

const byStart = (a: SpanFacts, b: SpanFacts) => a.started_at - b.started_at || a.span_id.localeCompare(b.span_id);

/**
 * A trace from all its spans, whatever order they arrived in: input from the root span,
 * else the first LLM span; output from the root, else the last LLM span; metrics summed.
 */
export function summarizeTrace(traceId: string, spans: SpanFacts[]): TraceSummary {
  const ordered = [...spans].sort(byStart);
  const ids = new Set(ordered.map((s) => s.span_id));
  const root = ordered.find((s) => s.parent_id === null) ?? ordered.find((s) => !ids.has(s.parent_id!)) ?? ordered[0];
  const llm = ordered.filter((s) => s.type === 'llm');
  const byFinish = [...ordered].sort((a, b) => b.finished_at - a.finished_at);

  const input =
    root.input_text ?? llm.find((s) => s.input_text)?.input_text ?? ordered.find((s) => s.input_text)?.input_text ?? null;
  const output =
    root.output_text ??
    [...llm].sort((a, b) => b.finished_at - a.finished_at).find((s) => s.output_text)?.output_text ??
    byFinish.find((s) => s.output_text)?.output_text ??
    null;

  // Metadata: the root's values win, then the earliest span that has one.
  const meta: TraceMetadataHints = {};
  const labels = new Set<string>();
  const extra: Record<string, unknown> = {};
  for (const s of [root, ...ordered.filter((x) => x !== root)]) {
    const m = s.trace_meta;
    if (!m) continue;
    for (const k of ['user_id', 'thread_id', 'customer_id', 'sdk_name', 'sdk_version', 'sdk_language'] as const) {
      if (meta[k] === undefined && m[k] !== undefined && m[k] !== null && m[k] !== '') meta[k] = String(m[k]);
    }
    for (const l of m.labels ?? []) labels.add(String(l));
    for (const [k, v] of Object.entries(m.extra ?? {})) if (!(k in extra)) extra[k] = v;
  }

  const started = Math.min(...ordered.map((s) => s.started_at));
  const finished = Math.max(...ordered.map((s) => s.finished_at));
  const firstTokens = ordered.map((s) => s.first_token_at).filter((v): v is number => v !== null);
  const sum = (pick: (s: SpanFacts) => number | null) => {
    const values = ordered.map(pick).filter((v): v is number => v !== null && Number.isFinite(v));
    return values.length ? values.reduce((a, b) => a + b, 0) : null;
  };
  const errorSpan = root.has_error ? root : ordered.find((s) => s.has_error);
  const totalCost = sum((s) => s.cost);

  const metadata: Record<string, unknown> = { ...extra };
  if (meta.sdk_version) metadata.sdk_version = meta.sdk_version;
  if (meta.sdk_language) metadata.sdk_language = meta.sdk_language;
  if (meta.sdk_name) metadata.sdk_name = meta.sdk_name;

  const models = [...new Set(ordered.map((s) => s.model).filter((m): m is string => !!m))];
  const clip = (s: string | null) => (s && s.length > MAX_TRACE_TEXT ? s.slice(0, MAX_TRACE_TEXT) : s);
  const searchText = searchablePlaceholders([input, output].filter(Boolean).join('\n').slice(0, MAX_SEARCH_TEXT));
  const summary: Omit<TraceSummary, 'indexing_md5'> = {
    trace_id: traceId,
    started_at: started,
    finished_at: finished,
    inserted_at: Math.min(...ordered.map((s) => s.inserted_at)),
    updated_at: Math.max(...ordered.map((s) => s.updated_at)),
    input: clip(input),
    output: clip(output),
    user_id: meta.user_id ?? null,
    thread_id: meta.thread_id ?? null,
    customer_id: meta.customer_id ?? null,
    labels: [...labels],
    metadata,
    models,
    model_names: [...new Set(models.flatMap(modelSearchNames))],
    normalized_models: [...new Set(models.map(canonicalModelName).filter((m): m is string => !!m))],
    span_types: [...new Set(ordered.map((s) => s.type))],
    span_count: ordered.length,
    first_token_ms: firstTokens.length ? Math.max(0, Math.min(...firstTokens) - started) : null,
    total_time_ms: Math.max(0, finished - started),
    prompt_tokens: sum((s) => s.prompt_tokens),
    completion_tokens: sum((s) => s.completion_tokens),
    cached_input_tokens: sum((s) => s.cached_input_tokens),
    reasoning_tokens: sum((s) => s.reasoning_tokens),
    tokens_estimated: ordered.some((s) => s.tokens_estimated),
    total_cost: totalCost === null ? null : Math.round(totalCost * 1e10) / 1e10,
    has_error: !!errorSpan,
    error: errorSpan?.error ?? null,
    search_text: searchText,
  };
  return { ...summary, indexing_md5: createHash('md5').update(JSON.stringify(summary)).digest('hex') };
}

/** The text a payload stands for: the last user message of a chat input, the last assistant message of an output. */
/**
 * Privacy's placeholders (`<EMAIL_ADDRESS>`, `<EMAIL_ADDRESS:3f9a1c2b7d4e>`) without their
 * angle brackets: PostgreSQL's text search parser reads `<...>` as a markup tag and indexes
 * nothing of it, and a search for the placeholder must find it.
 */
function searchablePlaceholders(text: string): string {
  return text.includes('<') ? text.replace(/<([A-Z][A-Z0-9_]*(?::[0-9a-f]{12})?)>/g, ' $1 ') : text;
}

export function payloadText(payload: SpanPayload | null, side: 'input' | 'output'): string | null {
  if (!payload) return null;
  if (payload.type === 'text') return payload.value;
  if (payload.type !== 'chat_messages') return typeof payload.value === 'string' ? payload.value : JSON.stringify(payload.value);
  const messages = payload.value;
  if (!messages.length) return null;
  const wanted = side === 'input' ? 'user' : 'assistant';
  const pick = [...messages].reverse().find((m) => m.role === wanted && contentText(m)) ?? messages[messages.length - 1];
  return contentText(pick) ?? JSON.stringify(pick);
}

export function contentText(message: ChatMessage): string | null {
  const c = message.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    const texts = c
      .map((part) => (typeof part === 'string' ? part : part && typeof part === 'object' && 'text' in part ? String((part).text) : ''))
      .filter(Boolean);
    return texts.length ? texts.join('\n') : null;
  }
  if (message.tool_calls?.length) return JSON.stringify(message.tool_calls);
  return null;
}
