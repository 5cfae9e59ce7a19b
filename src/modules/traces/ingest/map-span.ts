/**
 * Applies the semantic-convention mappers to one decoded span. One pass over the
 * attribute keys finds which families are present and collects the keys of the
 * prefix-addressed ones (indexed messages, request settings, metadata maps); each
 * mapper then does keyed lookups only. Priority, highest first: LangWatch's explicit
 * attributes, OpenInference, Vercel AI SDK, OpenLLMetry, OpenTelemetry GenAI, then
 * trace metadata, status and events.
 */
import { mapGenAi, mapGenAiEvents } from './conventions/genai.ts';
import { mapLangWatch } from './conventions/langwatch.ts';
import { mapOpenInference } from './conventions/openinference.ts';
import { mapStatusAndEvents } from './conventions/span-events.ts';
import { mapTraceMetadata } from './conventions/trace-metadata.ts';
import { mapTraceloop } from './conventions/traceloop.ts';
import { mapVercelAi } from './conventions/vercel-ai.ts';
import { setOwn, SpanMapping, type PrefixBucket, type RawSpan } from './mapping-context.ts';
import type { NormalizedSpan, SpanType } from './types.ts';

const GEN_AI = 1;
const LLM = 2;
const OPENINFERENCE = 4;
const VERCEL_AI = 8;
const TRACELOOP = 16;
const LANGWATCH = 32;

const TOTAL_TOKEN_KEYS = ['gen_ai.usage.total_tokens', 'llm.usage.total_tokens', 'llm.token_count.total', 'ai.usage.totalTokens'];

/** Span types whose token counts are the model's own, not a sum over child spans. */
const MODEL_CALL_TYPES = new Set<SpanType>(['llm', 'embedding']);

/**
 * startsWith for the dotted prefixes below. A String#startsWith call costs tens of
 * nanoseconds; checking first that the key has the prefix's closing dot at the
 * right place turns most of the misses away for the price of one charCodeAt.
 */
function hasPrefix(key: string, prefix: string): boolean {
  const dot = prefix.length - 1;
  return key.length > dot && key.charCodeAt(dot) === 46 && key.startsWith(prefix);
}

function collect(ctx: SpanMapping, key: string, prefix: PrefixBucket): boolean {
  if (!hasPrefix(key, prefix)) return false;
  const list = ctx.buckets.get(prefix);
  if (list) list.push(key);
  else ctx.buckets.set(prefix, [key]);
  return true;
}

function scanKeys(ctx: SpanMapping): number {
  let families = 0;
  for (const key of ctx.attrs.keys()) {
    switch (key.charCodeAt(0)) {
      case 103: // g
        if (hasPrefix(key, 'gen_ai.')) {
          families |= GEN_AI;
          if (collect(ctx, key, 'gen_ai.request.')) break;
          if (collect(ctx, key, 'gen_ai.prompt.') || collect(ctx, key, 'gen_ai.completion.')) families |= TRACELOOP;
        }
        break;
      case 108: // l
        if (hasPrefix(key, 'llm.')) {
          families |= LLM;
          if (collect(ctx, key, 'llm.input_messages.') || collect(ctx, key, 'llm.output_messages.')) break;
          if (!collect(ctx, key, 'llm.prompts.')) collect(ctx, key, 'llm.choices.');
        } else if (hasPrefix(key, 'langwatch.')) {
          families |= LANGWATCH;
          collect(ctx, key, 'langwatch.metadata.');
        }
        break;
      case 97: // a
        if (hasPrefix(key, 'ai.')) {
          families |= VERCEL_AI;
          if (!collect(ctx, key, 'ai.settings.')) collect(ctx, key, 'ai.telemetry.metadata.');
        }
        break;
      case 116: // t
        if (hasPrefix(key, 'traceloop.')) {
          families |= TRACELOOP;
          collect(ctx, key, 'traceloop.association.properties.');
        }
        break;
      case 111: // o
        if (hasPrefix(key, 'openinference.') || hasPrefix(key, 'output.')) families |= OPENINFERENCE;
        break;
      case 105: // i
        if (hasPrefix(key, 'input.')) families |= OPENINFERENCE;
        break;
      case 114: // r
        if (collect(ctx, key, 'retrieval.documents.') || hasPrefix(key, 'reranker.')) families |= OPENINFERENCE;
        break;
      case 101: // e
        if (hasPrefix(key, 'embedding.')) families |= OPENINFERENCE;
        break;
    }
  }
  return families;
}

function resolveType(ctx: SpanMapping): SpanType {
  if (ctx.declaredType !== null) return ctx.declaredType;
  if (ctx.suggestedType !== null) return ctx.suggestedType;
  if (ctx.model !== null) {
    const m = ctx.metrics;
    if (
      m.prompt_tokens !== null ||
      m.completion_tokens !== null ||
      ctx.input?.type === 'chat_messages' ||
      ctx.output?.type === 'chat_messages'
    ) {
      return 'llm';
    }
  }
  switch (ctx.raw.kind) {
    case 'server':
    case 'client':
    case 'producer':
    case 'consumer':
      return ctx.raw.kind;
    default:
      return 'span';
  }
}

/** Object.fromEntries, at a fifth of its cost for span-sized maps. */
function toRecord(map: Map<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of map) setOwn(out, key, value);
  return out;
}

export function mapSpan(raw: RawSpan): NormalizedSpan {
  const ctx = new SpanMapping(raw);
  const families = scanKeys(ctx);
  if (families & LANGWATCH) mapLangWatch(ctx);
  if (families & (OPENINFERENCE | LLM)) mapOpenInference(ctx);
  if (families & VERCEL_AI) mapVercelAi(ctx);
  if (families & (TRACELOOP | LLM)) mapTraceloop(ctx);
  if (families & GEN_AI) mapGenAi(ctx);
  if (ctx.events.length > 0) mapGenAiEvents(ctx);
  mapTraceMetadata(ctx);
  mapStatusAndEvents(ctx);
  for (const key of TOTAL_TOKEN_KEYS) ctx.dropConsistentTotal(key);

  const type = resolveType(ctx);
  const metrics = ctx.metrics;
  if (!MODEL_CALL_TYPES.has(type) && ctx.metricSources.length > 0) {
    // Agent, chain and workflow spans often repeat the usage of the calls under them;
    // counted again they would double the trace's tokens and cost. Their numbers stay
    // visible as the attributes they came in.
    for (const [key, value] of ctx.metricSources) ctx.attrs.set(key, value);
    metrics.prompt_tokens = null;
    metrics.completion_tokens = null;
    metrics.cached_input_tokens = null;
    metrics.reasoning_tokens = null;
  }

  return {
    trace_id: raw.trace_id,
    span_id: raw.span_id,
    parent_id: raw.parent_id,
    name: raw.name,
    type,
    model: ctx.model,
    vendor: ctx.vendor,
    started_at: raw.started_at,
    finished_at: raw.finished_at,
    first_token_at: ctx.firstTokenAt,
    params: ctx.params,
    metrics,
    input: ctx.input,
    output: ctx.output,
    ...(ctx.contexts ? { contexts: ctx.contexts } : {}),
    error: ctx.error,
    trace_metadata: ctx.hints,
    attributes: toRecord(ctx.attrs),
    resource: raw.resource,
    scope: raw.scope,
    events: ctx.events,
    links: raw.links,
    status: raw.status,
    kind: raw.kind,
  };
}
