/**
 * OpenInference (Arize Phoenix) conventions: openinference.span.kind, llm.* model,
 * provider, invocation parameters and token counts, the flattened indexed message
 * lists (llm.input_messages.N.message.*), completions-API prompts/choices,
 * input.value / output.value with their mime types, and retrieval documents.
 */
import {
  isRecord,
  jsonObject,
  str,
  table,
  unflattenIndexed,
  type PrefixBucket,
  type SpanMapping,
} from '../mapping-context.ts';
import { chatPayload, normalizeMessages, toPayload } from '../messages.ts';
import type { SpanPayload, SpanType } from '../types.ts';

const KIND_TYPES = table<SpanType>({
  LLM: 'llm',
  CHAIN: 'chain',
  TOOL: 'tool',
  AGENT: 'agent',
  RETRIEVER: 'retriever',
  RERANKER: 'retriever',
  EMBEDDING: 'embedding',
  GUARDRAIL: 'guardrail',
  EVALUATOR: 'evaluation',
  PROMPT: 'prompt',
});

export function mapOpenInference(ctx: SpanMapping): void {
  const a = ctx.attrs;
  const kind = str(a.get('openinference.span.kind'));
  if (kind !== null) {
    const type = KIND_TYPES.get(kind.toUpperCase());
    if (type !== undefined) {
      ctx.declareType(type);
      a.delete('openinference.span.kind');
    }
  }

  ctx.fillModel('llm.response.model_name');
  ctx.fillModel('llm.model_name');
  ctx.fillModel('llm.request.model_name');
  ctx.fillModel('embedding.model_name');
  ctx.fillModel('reranker.model_name');
  ctx.fillVendor('llm.provider');
  ctx.fillVendor('llm.system');

  const invocation = a.get('llm.invocation_parameters');
  if (invocation !== undefined) {
    const params = jsonObject(invocation);
    if (params !== null) {
      // The instrumentations set llm.model_name from the response: a call that failed
      // has only the model it asked for, here.
      ctx.model ??= str(params.model) ?? str(params.model_name) ?? str(params.model_id);
      ctx.mergeParams(params);
      a.delete('llm.invocation_parameters');
    }
  }

  ctx.fillMetric('prompt_tokens', 'llm.token_count.prompt');
  ctx.fillMetric('completion_tokens', 'llm.token_count.completion');
  ctx.fillMetric('cached_input_tokens', 'llm.token_count.prompt_details.cache_read');
  ctx.fillMetric('reasoning_tokens', 'llm.token_count.completion_details.reasoning');

  const inputMessages = indexedMessages(ctx, 'llm.input_messages.', 'user');
  if (inputMessages) ctx.fillInput(inputMessages.payload, ...inputMessages.keys);
  const outputMessages = indexedMessages(ctx, 'llm.output_messages.', 'assistant');
  if (outputMessages) ctx.fillOutput(outputMessages.payload, ...outputMessages.keys);

  const prompts = indexedTexts(ctx, 'llm.prompts.', 'prompt');
  if (prompts) ctx.fillInput(prompts.payload, ...prompts.keys);
  const choices = indexedTexts(ctx, 'llm.choices.', 'completion');
  if (choices) ctx.fillOutput(choices.payload, ...choices.keys);

  const documents = ctx.bucket('retrieval.documents.');
  if (documents) {
    const docs = unflattenIndexed(a, documents, 'retrieval.documents.').map(document);
    ctx.fillOutput({ type: 'json', value: docs }, ...documents);
  }

  if (a.has('input.value')) ctx.fillInput(valuePayload(a.get('input.value'), a.get('input.mime_type')), 'input.value', 'input.mime_type');
  if (a.has('output.value')) {
    ctx.fillOutput(valuePayload(a.get('output.value'), a.get('output.mime_type')), 'output.value', 'output.mime_type');
  }
}

function valuePayload(value: unknown, mime: unknown): SpanPayload | null {
  if (typeof value === 'string' && typeof mime === 'string' && mime.startsWith('text/')) return { type: 'text', value };
  return toPayload(value);
}

/** OpenInference message object -> the OpenAI-like shape the message normalizer reads. */
function oiMessage(entry: unknown): unknown {
  const m = isRecord(entry) && isRecord(entry.message) ? entry.message : entry;
  if (!isRecord(m)) return m;
  const out: Record<string, unknown> = { role: m.role };
  if (m.content !== undefined) out.content = m.content;
  else if (Array.isArray(m.contents)) out.content = m.contents.map(contentPart);
  if (Array.isArray(m.tool_calls)) out.tool_calls = m.tool_calls;
  if (m.tool_call_id !== undefined) out.tool_call_id = m.tool_call_id;
  if (m.name !== undefined) out.name = m.name;
  if (m.function_call_name !== undefined) {
    out.function_call = { name: m.function_call_name, arguments: m.function_call_arguments_json };
  }
  return out;
}

function contentPart(entry: unknown): unknown {
  const c = isRecord(entry) && isRecord(entry.message_content) ? entry.message_content : entry;
  if (!isRecord(c)) return c;
  if (c.type === 'text' && typeof c.text === 'string') return { type: 'text', text: c.text };
  if (c.type === 'image' && isRecord(c.image)) {
    const image = isRecord(c.image.image) ? c.image.image : c.image;
    return { type: 'image_url', image_url: { url: image.url } };
  }
  return c;
}

function indexedMessages(
  ctx: SpanMapping,
  prefix: PrefixBucket,
  defaultRole: string,
): { payload: SpanPayload | null; keys: string[] } | null {
  const keys = ctx.bucket(prefix);
  if (!keys) return null;
  const messages = normalizeMessages(unflattenIndexed(ctx.attrs, keys, prefix).map(oiMessage), defaultRole);
  return { payload: chatPayload(messages), keys };
}

/** Completions-API prompts/choices: one text, or a JSON list of texts. */
function indexedTexts(
  ctx: SpanMapping,
  prefix: PrefixBucket,
  field: 'prompt' | 'completion',
): { payload: SpanPayload; keys: string[] } | null {
  const keys = ctx.bucket(prefix);
  if (!keys) return null;
  const texts = unflattenIndexed(ctx.attrs, keys, prefix).map((entry) => {
    const inner = isRecord(entry) ? entry[field] : undefined;
    return isRecord(inner) && typeof inner.text === 'string' ? inner.text : entry;
  });
  const payload: SpanPayload =
    texts.length === 1 && typeof texts[0] === 'string' ? { type: 'text', value: texts[0] } : { type: 'json', value: texts };
  return { payload, keys };
}

function document(entry: unknown): unknown {
  const d = isRecord(entry) && isRecord(entry.document) ? entry.document : entry;
  if (!isRecord(d)) return d;
  const out: Record<string, unknown> = {};
  if (d.id !== undefined) out.document_id = d.id;
  if (d.content !== undefined) out.content = d.content;
  if (d.score !== undefined) out.score = d.score;
  if (d.metadata !== undefined) out.metadata = jsonObject(d.metadata) ?? d.metadata;
  return out;
}
