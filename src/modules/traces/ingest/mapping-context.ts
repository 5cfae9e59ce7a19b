/**
 * The state one span's mapping works on. Convention mappers run in priority order;
 * each reads the attributes it knows, fills a field only while it is still empty,
 * and consumes (deletes) an attribute only when its value was used or repeats what
 * the field already holds — so nothing a sender wrote is dropped, and whatever is
 * left over ends up in `attributes`.
 */
import type {
  NormalizedSpan,
  RagChunk,
  SpanError,
  SpanMetrics,
  SpanPayload,
  SpanType,
  TraceMetadataHints,
} from './types.ts';

export type SpanKindName = NormalizedSpan['kind'];
export type SpanEvent = NormalizedSpan['events'][number];
export type SpanLink = NormalizedSpan['links'][number];

/** A decoded, validated OTLP span before semantic conventions are applied. */
export interface RawSpan {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  name: string | null;
  kind: SpanKindName;
  started_at: number;
  finished_at: number;
  /** Decoded attribute values by key; the mapping consumes this map. */
  attributes: Map<string, unknown>;
  events: SpanEvent[];
  links: SpanLink[];
  status: NormalizedSpan['status'];
  /** Shared by every span of the same ResourceSpans: do not mutate. */
  resource: Record<string, unknown>;
  scope: NormalizedSpan['scope'];
}

type MetricField = 'prompt_tokens' | 'completion_tokens' | 'cached_input_tokens' | 'reasoning_tokens';

/** Attribute-key prefixes the dispatcher collects in its one pass over the keys. */
export type PrefixBucket =
  | 'gen_ai.request.'
  | 'gen_ai.prompt.'
  | 'gen_ai.completion.'
  | 'llm.input_messages.'
  | 'llm.output_messages.'
  | 'llm.prompts.'
  | 'llm.choices.'
  | 'retrieval.documents.'
  | 'ai.settings.'
  | 'ai.telemetry.metadata.'
  | 'langwatch.metadata.'
  | 'traceloop.association.properties.';

export class SpanMapping {
  readonly raw: RawSpan;
  readonly attrs: Map<string, unknown>;
  model: string | null = null;
  vendor: string | null = null;
  firstTokenAt: number | null = null;
  params: Record<string, unknown> = {};
  metrics: SpanMetrics = {
    prompt_tokens: null,
    completion_tokens: null,
    cached_input_tokens: null,
    reasoning_tokens: null,
    tokens_estimated: false,
    cost: null,
  };
  input: SpanPayload | null = null;
  output: SpanPayload | null = null;
  contexts: RagChunk[] | null = null;
  error: SpanError | null = null;
  hints: TraceMetadataHints = {};
  events: SpanEvent[];
  /** A type a convention states outright (openinference.span.kind, traceloop.span.kind, ...). */
  declaredType: SpanType | null = null;
  /** A type a convention suggests (gen_ai.operation.name, llm.request.type, ...). */
  suggestedType: SpanType | null = null;
  /** Token attributes consumed into metrics: handed back if the span is not a model call. */
  readonly metricSources: [string, unknown][] = [];
  readonly buckets = new Map<PrefixBucket, string[]>();

  constructor(raw: RawSpan) {
    this.raw = raw;
    this.attrs = raw.attributes;
    this.events = raw.events;
  }

  bucket(prefix: PrefixBucket): string[] | undefined {
    return this.buckets.get(prefix);
  }

  declareType(type: SpanType | null | undefined): void {
    if (type && this.declaredType === null) this.declaredType = type;
  }

  suggestType(type: SpanType | null | undefined): void {
    if (type && this.suggestedType === null) this.suggestedType = type;
  }

  fillModel(key: string): void {
    const value = str(this.attrs.get(key));
    if (value === null) return;
    if (this.model === null) this.model = value;
    if (this.model === value) this.attrs.delete(key);
  }

  /** Vendors are identifiers: lowercased, so `OpenAI` (OpenLLMetry JS) and `openai` agree. */
  fillVendor(key: string, normalize?: (v: string) => string): void {
    const raw = str(this.attrs.get(key));
    if (raw === null) return;
    const value = (normalize ? normalize(raw) : raw).toLowerCase();
    if (this.vendor === null) this.vendor = value;
    if (this.vendor === value) this.attrs.delete(key);
  }

  fillMetric(field: MetricField, key: string): void {
    const raw = this.attrs.get(key);
    if (raw === undefined) return;
    const value = int(raw);
    if (value === null) return;
    if (this.metrics[field] === null) this.metrics[field] = value;
    if (this.metrics[field] === value) {
      this.attrs.delete(key);
      this.metricSources.push([key, raw]);
    }
  }

  /** Consumes a total-token attribute when it agrees with prompt + completion. */
  dropConsistentTotal(key: string): void {
    const raw = this.attrs.get(key);
    if (raw === undefined) return;
    const total = int(raw);
    const { prompt_tokens: p, completion_tokens: c } = this.metrics;
    if (total !== null && p !== null && c !== null && p + c === total) {
      this.attrs.delete(key);
      this.metricSources.push([key, raw]);
    }
  }

  fillParam(name: string, key: string, convert?: (v: unknown) => unknown): void {
    const raw = this.attrs.get(key);
    if (raw === undefined) return;
    const value = convert ? convert(raw) : raw;
    if (value === undefined) return;
    if (!Object.prototype.hasOwnProperty.call(this.params, name)) {
      setOwn(this.params, name, value);
      this.attrs.delete(key);
    } else if (sameScalar(this.params[name], value)) {
      this.attrs.delete(key);
    }
  }

  mergeParams(values: Record<string, unknown>): void {
    for (const name of Object.keys(values)) {
      if (!Object.prototype.hasOwnProperty.call(this.params, name)) setOwn(this.params, name, values[name]);
    }
  }

  /** Sets input when still empty and consumes the keys it came from; returns whether it did. */
  fillInput(payload: SpanPayload | null, ...keys: string[]): boolean {
    if (payload === null || this.input !== null) return false;
    this.input = payload;
    for (const key of keys) this.attrs.delete(key);
    return true;
  }

  fillOutput(payload: SpanPayload | null, ...keys: string[]): boolean {
    if (payload === null || this.output !== null) return false;
    this.output = payload;
    for (const key of keys) this.attrs.delete(key);
    return true;
  }

  setFirstToken(at: number | null): void {
    if (at === null || !Number.isFinite(at) || this.firstTokenAt !== null) return;
    this.firstTokenAt = at;
  }

  /**
   * First token from a duration after the span start. A value in seconds that would put
   * the first token after the span's end while the same number of milliseconds fits in it
   * was written in milliseconds (OpenLLMetry's Bedrock instrumentation does so).
   */
  setFirstTokenAfter(key: string, unitMs: number): void {
    const raw = this.attrs.get(key);
    const value = num(raw);
    if (value === null || value < 0) return;
    if (this.firstTokenAt === null) {
      const { started_at: start, finished_at: end } = this.raw;
      const unit = unitMs > 1 && start + value * unitMs > end && start + value <= end ? 1 : unitMs;
      this.firstTokenAt = start + value * unit;
    }
    this.attrs.delete(key);
  }
}

/**
 * A lookup table for keys a sender chose. A plain object literal would answer
 * `constructor` or `__proto__` with what it inherits.
 */
export function table<V>(entries: Record<string, V>): ReadonlyMap<string, V> {
  return new Map(Object.entries(entries));
}

/** Assignment for keys a sender chose: `__proto__` becomes a property, not a prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A non-empty string, or null. Numbers are not ids' business here: only strings count. */
export function str(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/** A string, number or boolean as a non-empty string (ids arrive as any of these). */
export function idString(value: unknown): string | null {
  if (typeof value === 'string') return value.length > 0 ? value : null;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return null;
}

export function num(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.length > 0) {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

export function int(value: unknown): number | null {
  const n = num(value);
  return n === null ? null : Math.trunc(n);
}

export function bool(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

function sameScalar(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    return JSON.stringify(a) === JSON.stringify(b);
  }
  return false;
}

/** JSON.parse for attribute values that hold JSON text; undefined when it is not JSON. */
export function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  let i = 0;
  while (i < value.length && value.charCodeAt(i) <= 32) i++;
  const c = value.charCodeAt(i);
  // Only objects, arrays and quoted strings: "42" or "true" are better kept as text.
  if (c !== 123 && c !== 91 && c !== 34) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** A value that may be JSON text of an object: the object, or null. */
export function jsonObject(value: unknown): Record<string, unknown> | null {
  const v = typeof value === 'string' ? parseJson(value) : value;
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Rebuilds an indexed, flattened attribute family (`prefix.0.message.role`, ...)
 * into an array of nested objects. Numeric segments become array positions.
 */
export function unflattenIndexed(attrs: Map<string, unknown>, keys: string[], prefix: string): unknown[] {
  const root: Record<string, unknown> = {};
  for (const key of keys) {
    const path = key.slice(prefix.length).split('.');
    if (path.includes('__proto__')) continue;
    let node = root;
    for (let i = 0; i < path.length - 1; i++) {
      const seg = path[i];
      let next = node[seg];
      if (!isRecord(next)) {
        next = Object.create(null) as Record<string, unknown>;
        node[seg] = next;
      }
      node = next as Record<string, unknown>;
    }
    node[path[path.length - 1]] = attrs.get(key);
  }
  const arr = toArrays(root);
  return Array.isArray(arr) ? arr : [];
}

function isIndex(s: string): boolean {
  if (s.length === 0 || s.length > 6) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function toArrays(node: unknown): unknown {
  if (!isRecord(node)) return node;
  const keys = Object.keys(node);
  for (const k of keys) node[k] = toArrays(node[k]);
  if (keys.length > 0 && keys.every(isIndex)) {
    return keys
      .map(Number)
      .sort((a, b) => a - b)
      .map((k) => node[String(k)]);
  }
  // Back to an ordinary object (the null-prototype one only guarded the build).
  return Object.assign({}, node);
}
