/**
 * LangWatch SDK attributes (langwatch.*): an explicit span type, typed input/output
 * (`{type: chat_messages|text|json|raw|list, value}`), params, metrics and
 * timestamps. The LangWatch SDKs are the ones whose trace shape Spyglass serves,
 * so their explicit statements win over anything inferred.
 */
import { bool, int, isRecord, num, parseJson, str, type SpanMapping } from '../mapping-context.ts';
import { chatPayload, normalizeMessages, structuredPayload, toPayload } from '../messages.ts';
import type { RagChunk, SpanPayload, SpanType } from '../types.ts';

const SPAN_TYPES = new Set<SpanType>([
  'llm', 'chain', 'tool', 'agent', 'rag', 'retriever', 'embedding', 'prompt', 'guardrail', 'evaluation',
  'workflow', 'task', 'module', 'server', 'client', 'producer', 'consumer', 'span',
]);

/** `{type, value}`: how the LangWatch SDKs type a value (`{"type": "json", "value": {...}}`). */
function isTyped(v: unknown): v is { type: string; value: unknown } {
  return isRecord(v) && typeof v.type === 'string' && 'value' in v && Object.keys(v).length === 2;
}

function typedPayload(value: unknown): SpanPayload | null {
  const parsed = typeof value === 'string' ? parseJson(value) : value;
  if (isTyped(parsed)) {
    switch (parsed.type) {
      case 'chat_messages':
        return chatPayload(normalizeMessages(parsed.value, 'user')) ?? structuredPayload(parsed.value);
      case 'text':
      case 'raw':
        return typeof parsed.value === 'string' ? { type: 'text', value: parsed.value } : structuredPayload(parsed.value);
      case 'list':
        // A list of typed values: their values, in order.
        return { type: 'json', value: Array.isArray(parsed.value) ? parsed.value.map((v: unknown): unknown => (isTyped(v) ? v.value : v)) : parsed.value };
      case 'json':
        return { type: 'json', value: parsed.value };
      case 'guardrail_result':
      case 'evaluation_result':
        // Kept as typed: the SDKs and LangWatch's trace answers read an evaluation span's result by it.
        return { type: parsed.type, value: parsed.value };
      default:
        return structuredPayload(parsed.value);
    }
  }
  return toPayload(value);
}

/**
 * An object attribute as the LangWatch SDKs write it: JSON text of the object itself
 * (Python) or of a `{"type": "json", "value": {...}}` wrapper around it (TypeScript).
 */
function typedObject(value: unknown): Record<string, unknown> | null {
  let v = typeof value === 'string' ? parseJson(value) : value;
  if (isTyped(v)) v = typeof v.value === 'string' ? (parseJson(v.value) ?? v.value) : v.value;
  return isRecord(v) ? v : null;
}

/** The first of these keys (snake_case and camelCase spellings) that holds a value. */
function pick(o: Record<string, unknown>, ...keys: string[]): unknown {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k];
  return undefined;
}

/**
 * `span.update(contexts=[...])`: JSON text of a list of strings or of RAGChunks
 * (`{document_id?, chunk_id?, content}`), possibly in a `{type: "list"|"json", value}` wrapper
 * (TypeScript SDK). Null when it is neither: the attribute then stays as it came.
 */
function ragContexts(value: unknown): RagChunk[] | null {
  if (value === undefined) return null;
  let v = typeof value === 'string' ? parseJson(value) : value;
  if (isTyped(v)) v = v.value;
  if (!Array.isArray(v)) return null;
  const chunks: RagChunk[] = [];
  for (const item of v) {
    if (typeof item === 'string') chunks.push({ content: item });
    else if (isRecord(item) && 'content' in item) {
      chunks.push({
        ...(typeof item.document_id === 'string' ? { document_id: item.document_id } : {}),
        ...(typeof item.chunk_id === 'string' ? { chunk_id: item.chunk_id } : {}),
        content: item.content,
      });
    } else return null;
  }
  return chunks;
}

export function mapLangWatch(ctx: SpanMapping): void {
  const a = ctx.attrs;
  const type = str(a.get('langwatch.span.type'));
  if (type !== null && SPAN_TYPES.has(type as SpanType)) {
    ctx.declareType(type as SpanType);
    a.delete('langwatch.span.type');
  }
  if (a.has('langwatch.input')) ctx.fillInput(typedPayload(a.get('langwatch.input')), 'langwatch.input');
  if (a.has('langwatch.output')) ctx.fillOutput(typedPayload(a.get('langwatch.output')), 'langwatch.output');

  const contexts = ragContexts(a.get('langwatch.rag_contexts'));
  if (contexts !== null) {
    ctx.contexts = contexts;
    a.delete('langwatch.rag_contexts');
  }

  const params = a.get('langwatch.params');
  if (params !== undefined) {
    const object = typedObject(params);
    if (object !== null) {
      ctx.mergeParams(object);
      a.delete('langwatch.params');
    }
  }
  ctx.fillParam('stream', 'langwatch.gen_ai.streaming', bool);

  const metricsRaw = a.get('langwatch.metrics');
  const metrics = metricsRaw === undefined ? null : typedObject(metricsRaw);
  if (metrics !== null) {
    const m = ctx.metrics;
    m.prompt_tokens ??= int(pick(metrics, 'prompt_tokens', 'promptTokens'));
    m.completion_tokens ??= int(pick(metrics, 'completion_tokens', 'completionTokens'));
    m.cached_input_tokens ??= int(
      pick(metrics, 'cached_prompt_tokens', 'cachedPromptTokens', 'cached_input_tokens', 'cachedInputTokens', 'cache_read_input_tokens', 'cacheReadInputTokens'),
    );
    m.reasoning_tokens ??= int(pick(metrics, 'reasoning_tokens', 'reasoningTokens'));
    m.cost ??= num(pick(metrics, 'cost'));
    if (pick(metrics, 'tokens_estimated', 'tokensEstimated') === true) m.tokens_estimated = true;
    a.delete('langwatch.metrics');
    ctx.metricSources.push(['langwatch.metrics', metricsRaw]);
  }

  const timestamps = a.get('langwatch.timestamps');
  if (timestamps !== undefined) {
    const object = typedObject(timestamps);
    const firstToken = object === null ? null : num(pick(object, 'first_token_at', 'firstTokenAt'));
    if (firstToken !== null) {
      ctx.setFirstToken(firstToken);
      a.delete('langwatch.timestamps');
    }
  }
}
