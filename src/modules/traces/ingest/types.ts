/**
 * The normalized span every ingestion path (OTLP protobuf, OTLP JSON, collector)
 * produces, and that the store writes. Times are milliseconds since the epoch.
 */
export type SpanType =
  | 'llm' | 'chain' | 'tool' | 'agent' | 'rag' | 'retriever' | 'embedding'
  | 'prompt' | 'guardrail' | 'evaluation' | 'workflow' | 'task' | 'module' | 'server' | 'client'
  | 'producer' | 'consumer' | 'span';

export interface ChatMessage {
  role: string;
  content: string | null | unknown[];
  tool_calls?: unknown[];
  tool_call_id?: string;
  name?: string;
}

export type SpanPayload =
  | { type: 'chat_messages'; value: ChatMessage[] }
  | { type: 'text'; value: string }
  | { type: 'json'; value: unknown }
  /** What an evaluation or guardrail span returned, typed so by the LangWatch SDKs: any JSON. */
  | { type: 'evaluation_result' | 'guardrail_result'; value: unknown };

/** A retrieved document a RAG span used (`langwatch.rag_contexts`, LangWatch's RAGChunk). */
export interface RagChunk {
  document_id?: string | null;
  chunk_id?: string | null;
  content: unknown;
}

export interface SpanError {
  has_error: true;
  message: string;
  stacktrace: string[];
}

export interface SpanMetrics {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** Part of prompt_tokens read from the provider's prompt cache. */
  cached_input_tokens: number | null;
  /** Part of completion_tokens spent on reasoning. */
  reasoning_tokens: number | null;
  tokens_estimated: boolean;
  /** USD, when computed. */
  cost: number | null;
}

export interface NormalizedSpan {
  trace_id: string; // 32 lowercase hex
  span_id: string; // 16 lowercase hex
  parent_id: string | null;
  name: string | null;
  type: SpanType;
  model: string | null;
  /** Provider / system, e.g. "openai" (gen_ai.provider.name / gen_ai.system / llm.provider). */
  vendor: string | null;
  started_at: number;
  finished_at: number;
  first_token_at: number | null;
  params: Record<string, unknown>; // temperature, stream, max_tokens, top_p, ...
  metrics: SpanMetrics;
  input: SpanPayload | null;
  output: SpanPayload | null;
  /** RAG spans: the documents retrieved; absent when the span names none. */
  contexts?: RagChunk[];
  error: SpanError | null;
  /** Trace-level facts a span carries (user/thread/customer ids, labels, sdk). */
  trace_metadata: TraceMetadataHints;
  /** Every attribute that was not mapped onto a field above, kept verbatim (flattened keys). */
  attributes: Record<string, unknown>;
  /** Resource attributes (service.name, telemetry.sdk.*), flattened. */
  resource: Record<string, unknown>;
  scope: { name: string | null; version: string | null };
  events: { name: string; time: number; attributes: Record<string, unknown> }[];
  links: { trace_id: string; span_id: string; attributes: Record<string, unknown> }[];
  status: { code: 'unset' | 'ok' | 'error'; message: string | null };
  kind: 'internal' | 'server' | 'client' | 'producer' | 'consumer' | 'unspecified';
}

export interface TraceMetadataHints {
  user_id?: string;
  thread_id?: string;
  customer_id?: string;
  labels?: string[];
  sdk_name?: string;
  sdk_version?: string;
  sdk_language?: string;
  /** Other metadata key/values (e.g. langwatch.metadata.*, ai.telemetry.metadata.*). */
  extra?: Record<string, unknown>;
}
