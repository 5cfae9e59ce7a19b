/**
 * OTLP/HTTP trace requests (protobuf or JSON, already decompressed) -> NormalizedSpan[].
 * A body that is not a readable ExportTraceServiceRequest throws OtlpDecodeError;
 * a readable body with bad spans keeps its good spans and counts the bad ones with a
 * message each, which is what OTLP's partial success reports back to the sender.
 */
import { mapSpan } from './map-span.ts';
import { isRecord, type RawSpan, type SpanEvent, type SpanKindName, type SpanLink } from './mapping-context.ts';
import {
  decodeExportTraceServiceRequest,
  ExportTraceServiceResponseType,
  type PbExportTraceServiceRequest,
  type PbSpan,
} from './otlp-schema.ts';
import type { NormalizedSpan } from './types.ts';
import {
  bytesToHex,
  isAllZeroHex,
  jsonIdToHex,
  jsonKeyValues,
  jsonKeyValuesToMap,
  jsonNanosToMs,
  nanosToMs,
  pbKeyValues,
  pbKeyValuesToMap,
  ValueTooDeepError,
} from './values.ts';

/** More attributes than this on one span rejects that span (the OTel SDK default limit is 128). */
export const MAX_ATTRIBUTES_PER_SPAN = 2000;
/** Per-span events and links past these limits reject the span, as attributes do. */
export const MAX_EVENTS_PER_SPAN = 2000;
export const MAX_LINKS_PER_SPAN = 2000;
/** Rejection messages listed in full; the rest are summarized in one more line. */
export const MAX_REJECTION_MESSAGES = 20;

export type OtlpFormat = 'protobuf' | 'json';

export type OtlpDecodeErrorCode = 'unsupported_media_type' | 'malformed_request';

/** The body cannot be read as an OTLP trace request at all; nothing in it was accepted. */
export class OtlpDecodeError extends Error {
  readonly code: OtlpDecodeErrorCode;
  /** The HTTP status the OTLP/HTTP spec asks for: 415 or 400 (not retryable). */
  readonly statusCode: 400 | 415;

  constructor(code: OtlpDecodeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OtlpDecodeError';
    this.code = code;
    this.statusCode = code === 'unsupported_media_type' ? 415 : 400;
  }
}

export interface DecodeResult {
  spans: NormalizedSpan[];
  rejected: { count: number; messages: string[] };
}

/**
 * The request format a Content-Type names: JSON for application/json and +json
 * types; protobuf for application/x-protobuf, application/protobuf and
 * application/octet-stream. Null for anything else.
 */
export function otlpFormat(contentType: string): OtlpFormat | null {
  const semi = contentType.indexOf(';');
  const mime = (semi >= 0 ? contentType.slice(0, semi) : contentType).trim().toLowerCase();
  if (mime === 'application/json' || mime.endsWith('+json')) return 'json';
  if (mime === 'application/x-protobuf' || mime === 'application/protobuf' || mime === 'application/octet-stream') {
    return 'protobuf';
  }
  return null;
}

export function sniffFormat(body: Buffer): OtlpFormat {
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    return c === 0x7b /* { */ ? 'json' : 'protobuf';
  }
  return 'protobuf';
}

export interface DecodeOptions {
  /**
   * Epoch ms: spans that start or end later are rejected. A clock years ahead (or a max
   * uint64 timestamp) would otherwise sort first in every search, forever.
   */
  latestTimeMs?: number;
}

export function decodeTraceRequest(body: Buffer, contentType: string, options: DecodeOptions = {}): DecodeResult {
  return read(body, contentType, options).finish();
}

function read(body: Buffer, contentType: string, options: DecodeOptions): Batch {
  let format = otlpFormat(contentType);
  if (format === null) {
    if (contentType.trim() !== '') {
      throw new OtlpDecodeError(
        'unsupported_media_type',
        `unsupported Content-Type "${contentType}": send application/x-protobuf or application/json`,
      );
    }
    format = sniffFormat(body);
  }
  const batch = new Batch(options.latestTimeMs ?? Number.POSITIVE_INFINITY);
  if (format === 'protobuf') readProtobuf(body, batch);
  else readJson(body, batch);
  return batch;
}

class Batch {
  private readonly raws: RawSpan[] = [];
  private readonly positions = new Map<string, number>();
  private rejectedCount = 0;
  private readonly messages: string[] = [];

  constructor(readonly latestTimeMs: number) {}

  add(raw: RawSpan): void {
    // One span twice in a request: the later copy wins, as it would in the store,
    // and a multi-row upsert must not see the same key twice.
    const key = raw.trace_id + raw.span_id;
    const at = this.positions.get(key);
    if (at !== undefined) {
      this.raws[at] = raw;
      return;
    }
    this.positions.set(key, this.raws.length);
    this.raws.push(raw);
  }

  reject(where: string, message: string): void {
    this.rejectedCount++;
    if (this.messages.length < MAX_REJECTION_MESSAGES) this.messages.push(`${where}: ${message}`);
  }

  finish(): DecodeResult {
    this.mapped(0, this.raws.length);
    return this.result();
  }

  private readonly spans: NormalizedSpan[] = [];

  /** Maps `count` spans from `from` on; answers whether every span is mapped. */
  mapped(from: number, count: number): boolean {
    const to = Math.min(from + count, this.raws.length);
    for (let i = from; i < to; i++) {
      const raw = this.raws[i];
      try {
        this.spans.push(mapSpan(raw));
      } catch (error) {
        this.reject(describe('', raw.span_id, raw.name), `could not be mapped: ${(error as Error).message}`);
      }
    }
    return to === this.raws.length;
  }

  result(): DecodeResult {
    const spans = this.spans;
    const messages = this.messages.slice();
    const unlisted = this.rejectedCount - messages.length;
    if (unlisted > 0) messages.push(`... and ${unlisted} more rejected span${unlisted === 1 ? '' : 's'}`);
    return { spans, rejected: { count: this.rejectedCount, messages } };
  }
}

function describe(path: string, spanId: string | null, name: string | null): string {
  const id = spanId ? `span ${spanId}` : 'span';
  const label = name ? `${id} "${name.length > 80 ? `${name.slice(0, 80)}...` : name}"` : id;
  return path ? `${label} (${path})` : label;
}

const KINDS: SpanKindName[] = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];
const STATUS_CODES = ['unset', 'ok', 'error'] as const;

/** The id checks both formats share; returns the reason a span is invalid, or null. */
function checkIds(traceId: string | null, spanId: string | null, parentId: string | null | undefined): string | null {
  if (traceId === null) return 'trace id is not hex or base64';
  if (traceId.length !== 32) return `trace id must be 16 bytes, got ${traceId.length / 2}`;
  if (isAllZeroHex(traceId)) return 'trace id is all zeroes';
  if (spanId === null) return 'span id is not hex or base64';
  if (spanId.length !== 16) return `span id must be 8 bytes, got ${spanId.length / 2}`;
  if (isAllZeroHex(spanId)) return 'span id is all zeroes';
  if (parentId === undefined) return 'parent span id is not hex or base64';
  if (parentId !== null && parentId.length !== 0 && parentId.length !== 16) {
    return `parent span id must be 8 bytes or empty, got ${parentId.length / 2}`;
  }
  return null;
}

/** Empty or all-zero parent ids both mean a root span. */
function parentOrNull(parentId: string | null): string | null {
  return parentId === null || parentId.length === 0 || isAllZeroHex(parentId) ? null : parentId;
}

function checkCounts(attributes: number, events: number, links: number): string | null {
  if (attributes > MAX_ATTRIBUTES_PER_SPAN) {
    return `${attributes} attributes exceed the limit of ${MAX_ATTRIBUTES_PER_SPAN} per span`;
  }
  if (events > MAX_EVENTS_PER_SPAN) return `${events} events exceed the limit of ${MAX_EVENTS_PER_SPAN} per span`;
  if (links > MAX_LINKS_PER_SPAN) return `${links} links exceed the limit of ${MAX_LINKS_PER_SPAN} per span`;
  return null;
}

/**
 * A span without a start time cannot be placed; an end before the start is clamped to it;
 * times past `latest` (the server's clock plus a day of tolerated skew) are refused.
 */
function checkTimes(start: number, end: number, latest: number): string | null {
  if (Number.isNaN(start)) return 'start time is not a unix-nanoseconds integer';
  if (start <= 0) return 'start time is missing';
  if (Number.isNaN(end)) return 'end time is not a unix-nanoseconds integer';
  if (start > latest) return `start time ${isoOrRaw(start)} is more than a day ahead of the server's clock`;
  if (end > latest) return `end time ${isoOrRaw(end)} is more than a day ahead of the server's clock`;
  return null;
}

function isoOrRaw(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? `${ms} ms` : date.toISOString();
}

// ---------------------------------------------------------------- protobuf

function readProtobuf(body: Buffer, batch: Batch): void {
  let request: PbExportTraceServiceRequest;
  try {
    request = decodeExportTraceServiceRequest(body);
  } catch (error) {
    throw new OtlpDecodeError(
      'malformed_request',
      `body is not a valid OTLP ExportTraceServiceRequest protobuf: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const resourceSpans = request.resourceSpans;
  for (let r = 0; r < resourceSpans.length; r++) {
    const rs = resourceSpans[r];
    const resource = rs.resource ? pbKeyValues(rs.resource.attributes) : {};
    const groups = rs.instrumentationLibrarySpans.length > 0 ? [...rs.scopeSpans, ...rs.instrumentationLibrarySpans] : rs.scopeSpans;
    for (let s = 0; s < groups.length; s++) {
      const group = groups[s];
      const scope = { name: group.scope?.name || null, version: group.scope?.version || null };
      const spans = group.spans;
      for (let i = 0; i < spans.length; i++) {
        const raw = pbSpan(spans[i], resource, scope, batch, `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`);
        if (raw !== null) batch.add(raw);
      }
    }
  }
}

function pbSpan(
  span: PbSpan,
  resource: Record<string, unknown>,
  scope: RawSpan['scope'],
  batch: Batch,
  path: string,
): RawSpan | null {
  const traceId = bytesToHex(span.traceId);
  const spanId = bytesToHex(span.spanId);
  const parentId = bytesToHex(span.parentSpanId);
  const name = span.name || null;
  const startedAt = nanosToMs(span.startTimeUnixNano);
  const endedAt = nanosToMs(span.endTimeUnixNano);
  const problem =
    checkIds(traceId, spanId, parentId) ??
    checkCounts(span.attributes.length, span.events.length, span.links.length) ??
    checkTimes(startedAt, endedAt, batch.latestTimeMs);
  if (problem !== null) {
    batch.reject(describe(path, spanId.length === 16 ? spanId : null, name), problem);
    return null;
  }
  const events = new Array<SpanEvent>(span.events.length);
  for (let i = 0; i < span.events.length; i++) {
    const e = span.events[i];
    const time = nanosToMs(e.timeUnixNano);
    events[i] = { name: e.name, time: time > 0 ? time : startedAt, attributes: pbKeyValues(e.attributes) };
  }
  const links = new Array<SpanLink>(span.links.length);
  for (let i = 0; i < span.links.length; i++) {
    const l = span.links[i];
    links[i] = { trace_id: bytesToHex(l.traceId), span_id: bytesToHex(l.spanId), attributes: pbKeyValues(l.attributes) };
  }
  const status = span.status;
  return {
    trace_id: traceId,
    span_id: spanId,
    parent_id: parentOrNull(parentId),
    name,
    kind: KINDS[span.kind] ?? 'unspecified',
    started_at: startedAt,
    finished_at: endedAt >= startedAt ? endedAt : startedAt,
    attributes: pbKeyValuesToMap(span.attributes),
    events,
    links,
    status: { code: STATUS_CODES[status?.code ?? 0] ?? 'unset', message: status?.message || null },
    resource,
    scope,
  };
}

// ---------------------------------------------------------------- JSON

/** A field of an OTLP JSON object, by its proto3 JSON (camelCase) or original (snake_case) name. */
export function jsonField(o: Record<string, unknown>, camel: string, snake: string): unknown {
  const v = o[camel];
  return v === undefined ? o[snake] : v;
}

/** A repeated field of an OTLP JSON object: absent or null is empty; anything but an array is malformed. */
export function jsonList(o: Record<string, unknown>, camel: string, snake: string, path: string): unknown[] {
  const v = jsonField(o, camel, snake);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new OtlpDecodeError('malformed_request', `${path}.${camel} must be an array`);
  return v;
}

/** The top-level object of an OTLP/JSON export body (a byte-order mark allowed), or a malformed_request naming what is wrong. */
export function parseJsonExport(body: Buffer, rootField: 'resourceSpans' | 'resourceLogs'): Record<string, unknown> {
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') throw new OtlpDecodeError('malformed_request', 'body is empty: expected an OTLP JSON object');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new OtlpDecodeError('malformed_request', `body is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!isRecord(doc)) throw new OtlpDecodeError('malformed_request', `body must be a JSON object with a ${rootField} array`);
  return doc;
}

function readJson(body: Buffer, batch: Batch): void {
  const doc = parseJsonExport(body, 'resourceSpans');
  const resourceSpans = jsonList(doc, 'resourceSpans', 'resource_spans', 'body');
  for (let r = 0; r < resourceSpans.length; r++) {
    const rs = resourceSpans[r];
    const rPath = `resourceSpans[${r}]`;
    if (!isRecord(rs)) throw new OtlpDecodeError('malformed_request', `${rPath} must be an object`);
    const res = rs.resource;
    let resource: Record<string, unknown>;
    try {
      resource = isRecord(res) ? jsonKeyValues(res.attributes) : {};
    } catch (error) {
      if (!(error instanceof ValueTooDeepError)) throw error;
      throw new OtlpDecodeError('malformed_request', `${rPath}.resource: ${error.message}`);
    }
    const groups = [
      ...jsonList(rs, 'scopeSpans', 'scope_spans', rPath),
      ...jsonList(rs, 'instrumentationLibrarySpans', 'instrumentation_library_spans', rPath),
    ];
    for (let s = 0; s < groups.length; s++) {
      const group = groups[s];
      const sPath = `${rPath}.scopeSpans[${s}]`;
      if (!isRecord(group)) throw new OtlpDecodeError('malformed_request', `${sPath} must be an object`);
      const sc = jsonField(group, 'scope', 'instrumentation_library') ?? group.instrumentationLibrary;
      const scope = {
        name: isRecord(sc) && typeof sc.name === 'string' && sc.name !== '' ? sc.name : null,
        version: isRecord(sc) && typeof sc.version === 'string' && sc.version !== '' ? sc.version : null,
      };
      const spans = jsonList(group, 'spans', 'spans', sPath);
      for (let i = 0; i < spans.length; i++) {
        const path = `${sPath}.spans[${i}]`;
        const span = spans[i];
        if (!isRecord(span)) {
          batch.reject(describe(path, null, null), 'is not an object');
          continue;
        }
        const raw = jsonSpan(span, resource, scope, batch, path);
        if (raw !== null) batch.add(raw);
      }
    }
  }
}

function jsonId(value: unknown): string | null {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? jsonIdToHex(value) : null;
}

function jsonEnum(value: unknown, names: readonly string[], prefix: string): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return 0;
  const upper = value.toUpperCase();
  const bare = upper.startsWith(prefix) ? upper.slice(prefix.length) : upper;
  const index = names.findIndex((n) => n.toUpperCase() === bare);
  if (index >= 0) return index;
  const n = Number(value);
  return Number.isInteger(n) ? n : 0;
}

function arrayLength(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

function jsonSpan(
  span: Record<string, unknown>,
  resource: Record<string, unknown>,
  scope: RawSpan['scope'],
  batch: Batch,
  path: string,
): RawSpan | null {
  const traceId = jsonId(jsonField(span, 'traceId', 'trace_id'));
  const spanId = jsonId(jsonField(span, 'spanId', 'span_id'));
  const parentId = jsonId(jsonField(span, 'parentSpanId', 'parent_span_id'));
  const name = typeof span.name === 'string' && span.name !== '' ? span.name : null;
  const startedAt = jsonNanosToMs(jsonField(span, 'startTimeUnixNano', 'start_time_unix_nano'));
  const endedAt = jsonNanosToMs(jsonField(span, 'endTimeUnixNano', 'end_time_unix_nano'));
  const problem =
    checkIds(traceId, spanId, parentId ?? undefined) ??
    checkCounts(arrayLength(span.attributes), arrayLength(span.events), arrayLength(span.links)) ??
    checkTimes(startedAt, endedAt, batch.latestTimeMs);
  const label = describe(path, spanId !== null && spanId.length === 16 ? spanId : null, name);
  if (problem !== null) {
    batch.reject(label, problem);
    return null;
  }
  try {
    return {
      trace_id: traceId as string,
      span_id: spanId as string,
      parent_id: parentOrNull(parentId),
      name,
      kind: KINDS[jsonEnum(span.kind, KINDS, 'SPAN_KIND_')] ?? 'unspecified',
      started_at: startedAt,
      finished_at: endedAt >= startedAt ? endedAt : startedAt,
      attributes: jsonKeyValuesToMap(span.attributes),
      events: jsonEvents(span.events, startedAt),
      links: jsonLinks(span.links),
      status: jsonStatus(span.status),
      resource,
      scope,
    };
  } catch (error) {
    if (!(error instanceof ValueTooDeepError)) throw error;
    batch.reject(label, error.message);
    return null;
  }
}

function jsonEvents(events: unknown, startedAt: number): SpanEvent[] {
  const out: SpanEvent[] = [];
  if (!Array.isArray(events)) return out;
  for (const e of events) {
    if (!isRecord(e)) continue;
    const time = jsonNanosToMs(jsonField(e, 'timeUnixNano', 'time_unix_nano'));
    out.push({
      name: typeof e.name === 'string' ? e.name : '',
      time: time > 0 ? time : startedAt,
      attributes: jsonKeyValues(e.attributes),
    });
  }
  return out;
}

function jsonLinks(links: unknown): SpanLink[] {
  const out: SpanLink[] = [];
  if (!Array.isArray(links)) return out;
  for (const l of links) {
    if (!isRecord(l)) continue;
    const traceId = jsonField(l, 'traceId', 'trace_id');
    const spanId = jsonField(l, 'spanId', 'span_id');
    out.push({
      trace_id: jsonId(traceId) ?? String(traceId),
      span_id: jsonId(spanId) ?? String(spanId),
      attributes: jsonKeyValues(l.attributes),
    });
  }
  return out;
}

function jsonStatus(status: unknown): RawSpan['status'] {
  if (!isRecord(status)) return { code: 'unset', message: null };
  const code = STATUS_CODES[jsonEnum(status.code, STATUS_CODES, 'STATUS_CODE_')] ?? 'unset';
  return { code, message: typeof status.message === 'string' && status.message !== '' ? status.message : null };
}

// ---------------------------------------------------------------- response

/**
 * The ExportTraceServiceResponse body for a decode result, in the request's format:
 * empty (full success) or a partial_success naming the rejected count and reasons, and the
 * spans kept with values cut to the size cap (a warning: they count as accepted).
 */
export function encodeExportTraceResponse(rejected: DecodeResult['rejected'], format: OtlpFormat, truncated?: { count: number; messages: string[] }): Buffer {
  const messages = truncated && truncated.count > 0 ? [...rejected.messages, ...truncated.messages] : rejected.messages;
  const partialSuccess = messages.length > 0 ? { rejectedSpans: rejected.count, errorMessage: messages.join('; ') } : undefined;
  if (format === 'json') {
    const body = partialSuccess
      ? { partialSuccess: { rejectedSpans: String(partialSuccess.rejectedSpans), errorMessage: partialSuccess.errorMessage } }
      : {};
    return Buffer.from(JSON.stringify(body));
  }
  const message = ExportTraceServiceResponseType.fromObject(partialSuccess ? { partialSuccess } : {});
  return Buffer.from(ExportTraceServiceResponseType.encode(message).finish());
}
