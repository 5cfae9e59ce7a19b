/**
 * Small, allocation-light conversions shared by the protobuf and JSON decoders:
 * OTLP AnyValue -> plain JS value, ids -> lowercase hex, unix nanos -> epoch ms.
 */
import { setOwn } from './mapping-context.ts';
import type { PbAnyValue, PbInt64, PbKeyValue } from './otlp-schema.ts';

const HEX: string[] = [];
for (let i = 0; i < 256; i++) HEX.push(i.toString(16).padStart(2, '0'));

/** Lowercase hex of a byte array; a table walk beats Buffer#toString('hex') for 8–16 bytes. */
export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]];
  return out;
}

export function isAllZeroHex(hex: string): boolean {
  for (let i = 0; i < hex.length; i++) if (hex.charCodeAt(i) !== 48) return false;
  return true;
}

function isHex(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ok = (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
    if (!ok) return false;
  }
  return true;
}

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * An OTLP/JSON id: hex per the OTLP/JSON spec (any case), or base64 as the generic
 * protobuf JSON mapping (and some older senders) write bytes; padded base64 of 8 or
 * 16 bytes always holds a non-hex character, so the two cannot be confused. Returns
 * lowercase hex of whatever length it decodes to (callers check the length), or null
 * when the string is neither.
 */
export function jsonIdToHex(value: string): string | null {
  if (value.length === 0) return '';
  if (isHex(value)) return value.length % 2 === 0 ? value.toLowerCase() : null;
  if (!BASE64.test(value)) return null;
  // Node's base64 decoder reads the URL-safe alphabet too.
  return bytesToHex(Buffer.from(value, 'base64'));
}

const TWO_32_MS = 4294967296 / 1e6;

/** Rounded to whole microseconds: the float noise below that is not information. */
function roundMicros(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** A fixed64 unix-nanos value (protobufjs Long or number) as epoch milliseconds. */
export function nanosToMs(value: PbInt64 | null | undefined): number {
  if (value == null) return 0;
  if (typeof value === 'number') return roundMicros(value / 1e6);
  // high * 2^32 + low would round at 2^53 (256 ns here); splitting keeps microseconds.
  return roundMicros((value.high >>> 0) * TWO_32_MS + (value.low >>> 0) / 1e6);
}

/**
 * An OTLP/JSON unix-nanos value: a decimal string (the spec's form for 64-bit
 * integers) or a number. Strings are split so no digit is lost to doubles.
 * Returns NaN for anything else.
 */
export function jsonNanosToMs(value: unknown): number {
  if (typeof value === 'string') {
    if (value.length === 0) return 0;
    if (!/^\d+$/.test(value)) return Number.NaN;
    if (value.length <= 6) return roundMicros(Number(value) / 1e6);
    return roundMicros(Number(value.slice(0, -6)) + Number(value.slice(-6)) / 1e6);
  }
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? roundMicros(value / 1e6) : Number.NaN;
  if (value == null) return 0;
  return Number.NaN;
}

/** A signed int64 as a number when it fits exactly, else as its decimal string. */
export function longToValue(value: PbInt64): number | string {
  if (typeof value === 'number') return value;
  const long = value;
  const high = long.high | 0;
  const low = long.low >>> 0;
  if (long.unsigned) {
    const n = (high >>> 0) * 4294967296 + low;
    return Number.isSafeInteger(n) ? n : BigInt.asUintN(64, (BigInt(high >>> 0) << 32n) | BigInt(low)).toString();
  }
  const n = high * 4294967296 + low;
  if (Number.isSafeInteger(n)) return n;
  return BigInt.asIntN(64, (BigInt(high >>> 0) << 32n) | BigInt(low)).toString();
}

const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/**
 * Only the field that was on the wire is an own property of a decoded AnyValue (the
 * schema gives its fields explicit presence; the rest are prototype defaults).
 * Checked in order of how often each type appears.
 */
export function pbAnyValue(v: PbAnyValue | null | undefined): unknown {
  if (v == null) return null;
  if (hasOwn(v, 'stringValue')) return v.stringValue;
  if (hasOwn(v, 'intValue')) return longToValue(v.intValue);
  if (hasOwn(v, 'doubleValue')) return v.doubleValue;
  if (hasOwn(v, 'boolValue')) return v.boolValue;
  if (hasOwn(v, 'arrayValue')) {
    const values = v.arrayValue?.values ?? [];
    const out = new Array<unknown>(values.length);
    for (let i = 0; i < values.length; i++) out[i] = pbAnyValue(values[i]);
    return out;
  }
  if (hasOwn(v, 'kvlistValue')) return pbKeyValues(v.kvlistValue?.values ?? []);
  if (hasOwn(v, 'bytesValue')) {
    return Buffer.from(v.bytesValue.buffer, v.bytesValue.byteOffset, v.bytesValue.byteLength).toString('base64');
  }
  return null;
}

export function pbKeyValues(list: PbKeyValue[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < list.length; i++) setOwn(out, list[i].key, pbAnyValue(list[i].value));
  return out;
}

export function pbKeyValuesToMap(list: PbKeyValue[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (let i = 0; i < list.length; i++) out.set(list[i].key, pbAnyValue(list[i].value));
  return out;
}

function jsonInt(value: unknown): unknown {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : value;
  }
  return value ?? null;
}

function jsonDouble(value: unknown): unknown {
  if (typeof value === 'number') return value;
  if (value === 'NaN') return Number.NaN;
  if (value === 'Infinity') return Number.POSITIVE_INFINITY;
  if (value === '-Infinity') return Number.NEGATIVE_INFINITY;
  if (typeof value === 'string') {
    const n = Number(value);
    return Number.isNaN(n) ? value : n;
  }
  return value ?? null;
}

/**
 * Arrays and key-value lists nest at most this deep in an OTLP/JSON value. The
 * protobuf decoder stops at 100 message levels (two per level of nesting); a JSON
 * body has no such limit of its own, and the recursion below must not meet the
 * call stack's.
 */
export const MAX_VALUE_DEPTH = 32;

export class ValueTooDeepError extends Error {
  constructor() {
    super(`attribute value nests deeper than ${MAX_VALUE_DEPTH} levels`);
    this.name = 'ValueTooDeepError';
  }
}

/**
 * An OTLP/JSON AnyValue. Accepts the camelCase names of the spec and the
 * snake_case proto names; anything that is not an AnyValue object (a bare
 * string or number some hand-rolled senders put here) is kept as it is.
 */
export function jsonAnyValue(v: unknown, depth = 0): unknown {
  if (v === null || typeof v !== 'object') return v ?? null;
  const o = v as Record<string, unknown>;
  if (o.stringValue !== undefined) return o.stringValue;
  if (o.intValue !== undefined) return jsonInt(o.intValue);
  if (o.doubleValue !== undefined) return jsonDouble(o.doubleValue);
  if (o.boolValue !== undefined) return o.boolValue;
  if (o.arrayValue !== undefined) return jsonArrayValue(o.arrayValue, depth + 1);
  if (o.kvlistValue !== undefined) return jsonKvList(o.kvlistValue, depth + 1);
  if (o.bytesValue !== undefined) return o.bytesValue;
  if (o.string_value !== undefined) return o.string_value;
  if (o.int_value !== undefined) return jsonInt(o.int_value);
  if (o.double_value !== undefined) return jsonDouble(o.double_value);
  if (o.bool_value !== undefined) return o.bool_value;
  if (o.array_value !== undefined) return jsonArrayValue(o.array_value, depth + 1);
  if (o.kvlist_value !== undefined) return jsonKvList(o.kvlist_value, depth + 1);
  if (o.bytes_value !== undefined) return o.bytes_value;
  return null;
}

function jsonArrayValue(v: unknown, depth: number): unknown[] {
  if (depth > MAX_VALUE_DEPTH) throw new ValueTooDeepError();
  const values = v && typeof v === 'object' ? (v as { values?: unknown }).values : undefined;
  if (!Array.isArray(values)) return [];
  const out = new Array<unknown>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = jsonAnyValue(values[i], depth);
  return out;
}

function jsonKvList(v: unknown, depth: number): Record<string, unknown> {
  if (depth > MAX_VALUE_DEPTH) throw new ValueTooDeepError();
  const values = v && typeof v === 'object' ? (v as { values?: unknown }).values : undefined;
  return Array.isArray(values) ? jsonKeyValues(values, depth) : {};
}

export function jsonKeyValues(list: unknown, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(list)) return out;
  for (let i = 0; i < list.length; i++) {
    const kv = list[i] as { key?: unknown; value?: unknown } | null;
    if (kv && typeof kv.key === 'string') setOwn(out, kv.key, jsonAnyValue(kv.value, depth));
  }
  return out;
}

export function jsonKeyValuesToMap(list: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!Array.isArray(list)) return out;
  for (let i = 0; i < list.length; i++) {
    const kv = list[i] as { key?: unknown; value?: unknown } | null;
    if (kv && typeof kv.key === 'string') out.set(kv.key, jsonAnyValue(kv.value, 0));
  }
  return out;
}
