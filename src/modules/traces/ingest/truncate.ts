/**
 * The size cap on a span's values (SPYGLASS_MAX_ATTRIBUTE_BYTES): one attribute value, the
 * input, the output, ... over it keeps its first part and the span says which were cut in
 * its `spyglass.truncated` attribute. A gzip body of 58 KB can inflate to a 60 MB attribute;
 * stored whole, every copy of it (the row's JSON, the statement's parameter, PGlite's
 * memory, which does not shrink again) would cost its full size.
 */
import type { NormalizedSpan } from './types.ts';

/** The attribute naming what of a span was cut: the attribute keys, or input, output, params, ... */
export const TRUNCATED_ATTRIBUTE = 'spyglass.truncated';

/**
 * Cuts the values of `span` (in place) that are larger than `maxBytes` and lists the keys cut
 * in its `spyglass.truncated` attribute; answers those keys (empty: nothing was cut). A
 * string's size is its UTF-8 bytes; a structured value's is that of its JSON text.
 */
export function truncateSpan(span: NormalizedSpan, maxBytes: number): string[] {
  const cut: string[] = [];
  const fit = <T>(value: T, key: string): T => {
    if (!over(value, maxBytes)) return value;
    cut.push(key);
    return clip(value, { left: maxBytes }) as T;
  };
  for (const key of Object.keys(span.attributes)) span.attributes[key] = fit(span.attributes[key], key);
  if (span.input) span.input = { ...span.input, value: fit(span.input.value, 'input') } as typeof span.input;
  if (span.output) span.output = { ...span.output, value: fit(span.output.value, 'output') } as typeof span.output;
  span.params = fit(span.params, 'params');
  span.name = fit(span.name, 'name');
  span.model = fit(span.model, 'model');
  span.vendor = fit(span.vendor, 'vendor');
  if (span.error) span.error = { ...span.error, message: fit(span.error.message, 'error.message'), stacktrace: fit(span.error.stacktrace, 'error.stacktrace') };
  span.status = { ...span.status, message: fit(span.status.message, 'status.message') };
  span.trace_metadata = fit(span.trace_metadata, 'metadata');
  // The resource is one object shared by the spans of a request: replaced, not changed.
  let resource: Record<string, unknown> | null = null;
  for (const key of Object.keys(span.resource)) {
    const value = fit(span.resource[key], `resource.${key}`);
    if (value !== span.resource[key]) (resource ??= { ...span.resource })[key] = value;
  }
  if (resource) span.resource = resource;
  span.events.forEach((e, i) => {
    e.name = fit(e.name, `events[${i}].name`);
    for (const key of Object.keys(e.attributes)) e.attributes[key] = fit(e.attributes[key], `events[${i}].${key}`);
  });
  span.links.forEach((l, i) => {
    for (const key of Object.keys(l.attributes)) l.attributes[key] = fit(l.attributes[key], `links[${i}].${key}`);
  });
  if (cut.length > 0) span.attributes[TRUNCATED_ATTRIBUTE] = cut;
  return cut;
}

/**
 * Cuts the values of `attributes` (in place) larger than `maxBytes`, and lists the keys cut
 * in its own `spyglass.truncated` (GenAI log events: no span holds them yet); answers those keys.
 */
export function truncateAttributes(attributes: Record<string, unknown>, maxBytes: number): string[] {
  const cut: string[] = [];
  for (const key of Object.keys(attributes)) {
    if (!over(attributes[key], maxBytes)) continue;
    cut.push(key);
    attributes[key] = clip(attributes[key], { left: maxBytes });
  }
  if (cut.length > 0) attributes[TRUNCATED_ATTRIBUTE] = cut;
  return cut;
}

/**
 * Whether `value` is larger than `maxBytes` (a string: UTF-8 bytes; anything else: about its
 * JSON text's). Stops counting as soon as it is; a short string costs a length check only.
 */
export function over(value: unknown, maxBytes: number): boolean {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most strings need no counting.
  if (typeof value === 'string') return value.length * 3 > maxBytes && Buffer.byteLength(value, 'utf8') > maxBytes;
  return size(value, maxBytes + 1) > maxBytes;
}

/** `value`'s size in bytes, counted up to about `stop` at most. */
function size(value: unknown, stop: number): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8') + 2;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value).length;
  if (value === null) return 4;
  if (typeof value !== 'object') return 0;
  let n = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && n < stop; i++) n += size(value[i], stop - n) + 1;
    return n;
  }
  for (const key in value) {
    if (n >= stop) break;
    n += key.length + 3 + size((value as Record<string, unknown>)[key], stop - n);
  }
  return n;
}

/**
 * The first part of `value` that fits in `budget.left` bytes: a string cut on a UTF-8
 * character boundary; arrays and objects keep their first items (in order) while they fit,
 * the one that does not clipped the same way, the rest left out.
 */
function clip(value: unknown, budget: { left: number }, nested = false): unknown {
  if (typeof value === 'string') {
    // Inside JSON a string takes its quotes as well.
    const quotes = nested ? 2 : 0;
    const s = cutUtf8(value, Math.max(0, budget.left - quotes));
    budget.left -= Buffer.byteLength(s, 'utf8') + quotes;
    return s;
  }
  if (value === null || typeof value !== 'object') {
    budget.left -= size(value, Infinity);
    return value;
  }
  budget.left -= 2;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      // Not an item cut to nothing.
      if (budget.left < 16) break;
      out.push(clip(item, budget, true));
      budget.left -= 1;
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (budget.left < key.length + 16) break;
    budget.left -= key.length + 4; // its quotes, colon and comma
    out[key] = clip(item, budget, true);
  }
  return out;
}

/** The longest start of `s` whose UTF-8 encoding is at most `maxBytes`, cut between characters. */
export function cutUtf8(s: string, maxBytes: number): string {
  if (s.length * 3 <= maxBytes) return s;
  // At most maxBytes UTF-16 units; not through half of a surrogate pair.
  let end = Math.min(s.length, maxBytes);
  const last = s.charCodeAt(end - 1);
  if (end < s.length && last >= 0xd800 && last <= 0xdbff) end--;
  const bytes = Buffer.from(s.slice(0, end), 'utf8');
  // Back off to the first byte of the character that crosses the limit. The string is made
  // from the bytes, not sliced: a slice could keep the whole original (V8's sliced strings).
  let at = Math.min(maxBytes, bytes.length);
  while (at > 0 && at < bytes.length && (bytes[at] & 0xc0) === 0x80) at--;
  return bytes.toString('utf8', 0, at);
}
