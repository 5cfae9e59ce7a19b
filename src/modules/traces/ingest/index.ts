export {
  decodeTraceRequest,
  encodeExportTraceResponse,
  otlpFormat,
  OtlpDecodeError,
  MAX_ATTRIBUTES_PER_SPAN,
  MAX_EVENTS_PER_SPAN,
  MAX_LINKS_PER_SPAN,
  MAX_REJECTION_MESSAGES,
  type DecodeResult,
  type OtlpDecodeErrorCode,
  type OtlpFormat,
} from './otlp.ts';
export { mapSpan } from './map-span.ts';
export type { RawSpan } from './mapping-context.ts';
export { normalizeMessages, toPayload } from './messages.ts';
export type * from './types.ts';
export { decodeLogsRequest, encodeExportLogsResponse, type LogsDecodeResult, type SpanLogEvents } from './otlp-logs.ts';
export { mergeGenAiLogEvents } from './conventions/genai.ts';
export type { SpanEvent } from './mapping-context.ts';
export { OtlpDecoder, type OtlpDecoderOptions } from './otlp-decode-pool.ts';
export type { DecodedTraces } from './otlp-decode-protocol.ts';
export { inflatedSizeBound, OTLP_DECOMPRESSED_LIMIT } from './inflate.ts';
export { truncateSpan, TRUNCATED_ATTRIBUTE } from './truncate.ts';
