/**
 * OTLP/HTTP log requests (protobuf or JSON, already decompressed) -> the GenAI events they
 * carry, grouped by the span they belong to. Newer GenAI instrumentations send a call's
 * prompt and completion as log records (`gen_ai.user.message`, `gen_ai.choice`, ...,
 * `gen_ai.client.inference.operation.details`) linked to the span by trace and span id;
 * the service merges them into that span's input and output. Any other record (no span
 * to belong to, or not a GenAI event) is rejected with its reason in the partial success:
 * Spyglass keeps traces, not application logs, and never acknowledges what it drops.
 */
import { isRecord, type SpanEvent } from './mapping-context.ts';
import { jsonField, jsonList, MAX_REJECTION_MESSAGES, OtlpDecodeError, otlpFormat, parseJsonExport, sniffFormat, type OtlpFormat } from './otlp.ts';
import { decodeExportLogsServiceRequest, ExportLogsServiceResponseType, type PbExportLogsServiceRequest } from './otlp-schema.ts';
import {
  bytesToHex,
  isAllZeroHex,
  jsonAnyValue,
  jsonIdToHex,
  jsonKeyValues,
  jsonNanosToMs,
  nanosToMs,
  pbAnyValue,
  pbKeyValues,
  ValueTooDeepError,
} from './values.ts';

/** The GenAI events of one span, in the order they were sent. */
export interface SpanLogEvents {
  trace_id: string;
  span_id: string;
  events: SpanEvent[];
}

export interface LogsDecodeResult {
  spans: SpanLogEvents[];
  accepted: number;
  rejected: { count: number; messages: string[] };
}

/** Per-span limit, as for span events: a span's content does not need more. */
export const MAX_LOG_EVENTS_PER_SPAN = 2000;

class LogBatch {
  private readonly bySpan = new Map<string, SpanLogEvents>();
  accepted = 0;
  private rejectedCount = 0;
  private readonly messages: string[] = [];

  add(where: string, traceId: string | null, spanId: string | null, name: string, time: number, attributes: Record<string, unknown>, body: unknown) {
    if (traceId === null || traceId.length !== 32 || isAllZeroHex(traceId)) return this.reject(where, 'has no trace id (16 bytes): it belongs to no span');
    if (spanId === null || spanId.length !== 16 || isAllZeroHex(spanId)) return this.reject(where, 'has no span id (8 bytes): it belongs to no span');
    if (!name.startsWith('gen_ai.')) {
      return this.reject(where, `"${name || '(no event name)'}" is not a GenAI event: only gen_ai.* events are kept, merged into their spans`);
    }
    const key = traceId + spanId;
    let group = this.bySpan.get(key);
    if (!group) this.bySpan.set(key, (group = { trace_id: traceId, span_id: spanId, events: [] }));
    if (group.events.length >= MAX_LOG_EVENTS_PER_SPAN) return this.reject(where, `more than ${MAX_LOG_EVENTS_PER_SPAN} events for span ${spanId}`);
    // The span-event form of these events carries the body as an attribute: one shape for both.
    const attrs = { ...attributes };
    delete attrs['event.name'];
    if (body !== null && body !== undefined) attrs.body = body;
    group.events.push({ name, time, attributes: attrs });
    this.accepted++;
  }

  reject(where: string, message: string): void {
    this.rejectedCount++;
    if (this.messages.length < MAX_REJECTION_MESSAGES) this.messages.push(`${where}: ${message}`);
  }

  finish(): LogsDecodeResult {
    const messages = this.messages.slice();
    const unlisted = this.rejectedCount - messages.length;
    if (unlisted > 0) messages.push(`... and ${unlisted} more rejected log record${unlisted === 1 ? '' : 's'}`);
    return { spans: [...this.bySpan.values()], accepted: this.accepted, rejected: { count: this.rejectedCount, messages } };
  }
}

/** The event name of a record: the LogRecord field (OTLP 1.5+), else the older `event.name` attribute. */
function eventName(field: string, attributes: Record<string, unknown>): string {
  if (field) return field;
  const attr = attributes['event.name'];
  return typeof attr === 'string' ? attr : '';
}

export function decodeLogsRequest(body: Buffer, contentType: string): LogsDecodeResult {
  let format = otlpFormat(contentType);
  if (format === null) {
    if (contentType.trim() !== '') {
      throw new OtlpDecodeError('unsupported_media_type', `unsupported Content-Type "${contentType}": send application/x-protobuf or application/json`);
    }
    format = sniffFormat(body);
  }
  const batch = new LogBatch();
  if (format === 'protobuf') readProtobuf(body, batch);
  else readJson(body, batch);
  return batch.finish();
}

function readProtobuf(body: Buffer, batch: LogBatch): void {
  let request: PbExportLogsServiceRequest;
  try {
    request = decodeExportLogsServiceRequest(body);
  } catch (error) {
    throw new OtlpDecodeError('malformed_request', `body is not a valid OTLP ExportLogsServiceRequest protobuf: ${(error as Error).message}`, { cause: error });
  }
  request.resourceLogs.forEach((rl, r) =>
    rl.scopeLogs.forEach((sl, s) =>
      sl.logRecords.forEach((rec, i) => {
        const attributes = pbKeyValues(rec.attributes);
        const time = nanosToMs(rec.timeUnixNano) || nanosToMs(rec.observedTimeUnixNano);
        batch.add(
          `resourceLogs[${r}].scopeLogs[${s}].logRecords[${i}]`,
          bytesToHex(rec.traceId),
          bytesToHex(rec.spanId),
          eventName(rec.eventName, attributes),
          time,
          attributes,
          rec.body ? pbAnyValue(rec.body) : null,
        );
      }),
    ),
  );
}

function jsonId(value: unknown): string | null {
  return typeof value === 'string' ? jsonIdToHex(value) : null;
}

function readJson(body: Buffer, batch: LogBatch): void {
  const doc = parseJsonExport(body, 'resourceLogs');
  jsonList(doc, 'resourceLogs', 'resource_logs', 'body').forEach((rl, r) => {
    const rPath = `resourceLogs[${r}]`;
    if (!isRecord(rl)) throw new OtlpDecodeError('malformed_request', `${rPath} must be an object`);
    jsonList(rl, 'scopeLogs', 'scope_logs', rPath).forEach((sl, s) => {
      const sPath = `${rPath}.scopeLogs[${s}]`;
      if (!isRecord(sl)) throw new OtlpDecodeError('malformed_request', `${sPath} must be an object`);
      jsonList(sl, 'logRecords', 'log_records', sPath).forEach((rec, i) => {
        const where = `${sPath}.logRecords[${i}]`;
        if (!isRecord(rec)) return batch.reject(where, 'is not an object');
        try {
          const attributes = jsonKeyValues(rec.attributes);
          const time = jsonNanosToMs(jsonField(rec, 'timeUnixNano', 'time_unix_nano')) || jsonNanosToMs(jsonField(rec, 'observedTimeUnixNano', 'observed_time_unix_nano'));
          const name = jsonField(rec, 'eventName', 'event_name');
          batch.add(
            where,
            jsonId(jsonField(rec, 'traceId', 'trace_id')),
            jsonId(jsonField(rec, 'spanId', 'span_id')),
            eventName(typeof name === 'string' ? name : '', attributes),
            Number.isFinite(time) ? time : 0,
            attributes,
            rec.body === undefined ? null : jsonAnyValue(rec.body),
          );
        } catch (error) {
          if (!(error instanceof ValueTooDeepError)) throw error;
          batch.reject(where, error.message);
        }
      });
    });
  });
}

/** The ExportLogsServiceResponse body: empty, or a partial success naming what was rejected and why. */
export function encodeExportLogsResponse(rejected: LogsDecodeResult['rejected'], format: OtlpFormat): Buffer {
  const partialSuccess = rejected.count > 0 ? { rejectedLogRecords: rejected.count, errorMessage: rejected.messages.join('; ') } : undefined;
  if (format === 'json') {
    const body = partialSuccess
      ? { partialSuccess: { rejectedLogRecords: String(partialSuccess.rejectedLogRecords), errorMessage: partialSuccess.errorMessage } }
      : {};
    return Buffer.from(JSON.stringify(body));
  }
  const message = ExportLogsServiceResponseType.fromObject(partialSuccess ? { partialSuccess } : {});
  return Buffer.from(ExportLogsServiceResponseType.encode(message).finish());
}
