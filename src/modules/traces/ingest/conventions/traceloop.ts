/**
 * OpenLLMetry / Traceloop conventions: traceloop.span.kind and entity input/output
 * of workflows and tasks, the indexed prompt/completion attributes
 * (gen_ai.prompt.N.role/content/tool_calls..., gen_ai.completion.N.*), llm.request.type,
 * llm.* request settings, and traceloop.association.properties.* trace metadata.
 * Model, system and usage are gen_ai.* and left to the GenAI mapper.
 */
import {
  bool,
  isRecord,
  parseJson,
  str,
  table,
  unflattenIndexed,
  type PrefixBucket,
  type SpanMapping,
} from '../mapping-context.ts';
import { chatPayload, normalizeMessages, toPayload } from '../messages.ts';
import type { SpanType } from '../types.ts';
import { applyMetadataEntry } from './trace-metadata.ts';

const KIND_TYPES = table<SpanType>({
  workflow: 'workflow',
  task: 'task',
  agent: 'agent',
  tool: 'tool',
});

const REQUEST_TYPES = table<SpanType>({
  chat: 'llm',
  completion: 'llm',
  embedding: 'embedding',
  rerank: 'retriever',
});

const ASSOCIATION_PREFIX = 'traceloop.association.properties.';

export function mapTraceloop(ctx: SpanMapping): void {
  const a = ctx.attrs;
  const kind = str(a.get('traceloop.span.kind'));
  if (kind !== null && KIND_TYPES.get(kind) !== undefined) {
    ctx.declareType(KIND_TYPES.get(kind));
    a.delete('traceloop.span.kind');
  }
  const requestType = str(a.get('llm.request.type'));
  if (requestType !== null) ctx.suggestType(REQUEST_TYPES.get(requestType));

  const prompts = indexed(ctx, 'gen_ai.prompt.', 'user');
  if (prompts) ctx.fillInput(prompts.payload, ...prompts.keys);
  const completions = indexed(ctx, 'gen_ai.completion.', 'assistant');
  if (completions) ctx.fillOutput(completions.payload, ...completions.keys);

  if (a.has('traceloop.entity.input')) {
    ctx.fillInput(toPayload(unwrapCallArguments(a.get('traceloop.entity.input'))), 'traceloop.entity.input');
  }
  if (a.has('traceloop.entity.output')) {
    ctx.fillOutput(toPayload(a.get('traceloop.entity.output')), 'traceloop.entity.output');
  }

  ctx.fillVendor('llm.vendor');
  // Names of OpenLLMetry releases before the gen_ai.* ones.
  ctx.fillModel('llm.response.model');
  ctx.fillModel('llm.request.model');
  ctx.fillParam('stream', 'llm.is_streaming', bool);
  ctx.fillParam('top_k', 'llm.top_k');
  ctx.fillParam('frequency_penalty', 'llm.frequency_penalty');
  ctx.fillParam('presence_penalty', 'llm.presence_penalty');
  ctx.fillParam('stop_sequences', 'llm.chat.stop_sequences');

  const association = ctx.bucket(ASSOCIATION_PREFIX);
  if (association) {
    for (const key of association) {
      applyMetadataEntry(ctx.hints, key.slice(ASSOCIATION_PREFIX.length), a.get(key));
      a.delete(key);
    }
  }
}

/**
 * OpenLLMetry's decorators record a call's input as `{"args": [...], "kwargs": {...}}`:
 * a lone argument or the keyword arguments alone say more on their own.
 */
function unwrapCallArguments(value: unknown): unknown {
  const parsed = typeof value === 'string' ? parseJson(value) : value;
  if (!isRecord(parsed)) return value;
  const keys = Object.keys(parsed);
  if (keys.some((k) => k !== 'args' && k !== 'kwargs')) return parsed;
  const args = Array.isArray(parsed.args) ? parsed.args : [];
  const kwargs = isRecord(parsed.kwargs) ? parsed.kwargs : {};
  const kwargCount = Object.keys(kwargs).length;
  if (args.length === 1 && kwargCount === 0) return args[0];
  if (args.length === 0 && kwargCount > 0) return kwargs;
  return parsed;
}

function indexed(ctx: SpanMapping, prefix: PrefixBucket, defaultRole: string) {
  const keys = ctx.bucket(prefix);
  if (!keys) return null;
  const entries = unflattenIndexed(ctx.attrs, keys, prefix).map(promptEntry);
  return { payload: chatPayload(normalizeMessages(entries, defaultRole)), keys };
}

/** Multimodal content arrives as JSON text of the provider's content parts. */
function promptEntry(entry: unknown): unknown {
  if (!isRecord(entry) || typeof entry.content !== 'string') return entry;
  const c = entry.content;
  if (c.length > 1 && c.charCodeAt(0) === 91 /* [ */) {
    const parts = parseJson(c);
    if (Array.isArray(parts) && parts.length > 0 && parts.every((p) => isRecord(p) && typeof p.type === 'string')) {
      return { ...entry, content: parts };
    }
  }
  return entry;
}
