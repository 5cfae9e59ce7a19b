/**
 * LangWatch SDK attributes (langwatch.*): an explicit span type, typed input/output
 * (`{type: chat_messages|text|json|raw|list, value}`), params, metrics and
 * timestamps. The LangWatch SDKs are the ones whose trace shape Spyglass serves,
 * so their explicit statements win over anything inferred.
 */
import { bool, int, isRecord, jsonObject, num, parseJson, str, type SpanMapping } from '../mapping-context.ts';
import { chatPayload, normalizeMessages, structuredPayload, toPayload } from '../messages.ts';
import type { SpanPayload, SpanType } from '../types.ts';

const SPAN_TYPES = new Set<SpanType>([
  'llm', 'chain', 'tool', 'agent', 'rag', 'retriever', 'embedding', 'prompt', 'guardrail', 'evaluation',
  'workflow', 'task', 'module', 'server', 'client', 'producer', 'consumer', 'span',
]);

function typedPayload(value: unknown): SpanPayload | null {
  const parsed = typeof value === 'string' ? parseJson(value) : value;
  if (isRecord(parsed) && typeof parsed.type === 'string' && 'value' in parsed) {
    switch (parsed.type) {
      case 'chat_messages':
        return chatPayload(normalizeMessages(parsed.value, 'user')) ?? structuredPayload(parsed.value);
      case 'text':
      case 'raw':
        return typeof parsed.value === 'string' ? { type: 'text', value: parsed.value } : structuredPayload(parsed.value);
      case 'json':
      case 'list':
        return { type: 'json', value: parsed.value };
      default:
        return structuredPayload(parsed.value);
    }
  }
  return toPayload(value);
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

  const params = a.get('langwatch.params');
  if (params !== undefined) {
    const object = jsonObject(params);
    if (object !== null) {
      ctx.mergeParams(object);
      a.delete('langwatch.params');
    }
  }
  ctx.fillParam('stream', 'langwatch.gen_ai.streaming', bool);

  const metricsRaw = a.get('langwatch.metrics');
  const metrics = metricsRaw === undefined ? null : jsonObject(metricsRaw);
  if (metrics !== null) {
    const m = ctx.metrics;
    m.prompt_tokens ??= int(metrics.prompt_tokens);
    m.completion_tokens ??= int(metrics.completion_tokens);
    m.cached_input_tokens ??= int(metrics.cached_input_tokens ?? metrics.cache_read_input_tokens);
    m.reasoning_tokens ??= int(metrics.reasoning_tokens);
    m.cost ??= num(metrics.cost);
    if (metrics.tokens_estimated === true) m.tokens_estimated = true;
    a.delete('langwatch.metrics');
    ctx.metricSources.push(['langwatch.metrics', metricsRaw]);
  }

  const timestamps = a.get('langwatch.timestamps');
  if (timestamps !== undefined) {
    const object = jsonObject(timestamps);
    const firstToken = object === null ? null : num(object.first_token_at);
    if (firstToken !== null) {
      ctx.setFirstToken(firstToken);
      a.delete('langwatch.timestamps');
    }
  }
}
