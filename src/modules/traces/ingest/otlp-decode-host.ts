/**
 * The OTLP decode worker (entry: otlp-decode-worker.mjs; the main thread's side:
 * otlp-decode-thread.ts). It takes an OTLP/HTTP request body as it came off the socket and
 * does everything up to the rows the store writes: decompression, protobuf or JSON decoding,
 * validation, mapping, pricing and token estimates, the rows' JSON text. The main thread gets
 * back a few long strings, so neither the work nor the garbage of a 1,000-span request ever
 * lands on it (README: Overload).
 */
import { parentPort, workerData } from 'node:worker_threads';
import zlib from 'node:zlib';
import { AppError } from '../../../platform/errors.ts';
import { joinRows, prepareSpanRow, toSpanRow, type PreparedRows } from '../span-rows.ts';
import { DECODE_WORKER_ROLE } from './otlp-decode-thread.ts';
import { decodeTraceRequest, OtlpDecodeError } from './otlp.ts';
import { decodeLogsRequest, type LogsDecodeResult } from './otlp-logs.ts';

/** What one OTLP request may decompress to (a decompression bomb is refused with 413). */
export const OTLP_DECOMPRESSED_LIMIT = 64 * 1024 * 1024;

export interface DecodeJob {
  id: number;
  signal: 'traces' | 'logs';
  body: Uint8Array;
  contentType: string;
  contentEncoding: string;
  /** Epoch ms past which a span's start or end is refused (traces). */
  latestTimeMs: number;
}

/** A trace request's accepted spans as rows, and what was refused of it. */
export interface DecodedTraces {
  rows: PreparedRows;
  count: number;
  rejected: { count: number; messages: string[] };
}

/** A refusal the client caused: the AppError the main thread throws. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
  field?: string;
}

export type DecodeAnswer =
  | { id: number; traces: DecodedTraces }
  | { id: number; logs: LogsDecodeResult }
  | { id: number; refused: Refusal }
  /** Not the client's doing (a bug): the request answers 500. */
  | { id: number; failed: string };

function decompress(body: Uint8Array, encoding: string): Buffer {
  const data = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const enc = encoding.trim().toLowerCase();
  if (enc === '' || enc === 'identity') return data;
  if (enc !== 'gzip' && enc !== 'deflate') {
    throw new AppError(415, 'unsupported_content_encoding', `content-encoding ${encoding} is not supported; use gzip, deflate or none`, { field: 'content-encoding' });
  }
  try {
    return (enc === 'gzip' ? zlib.gunzipSync : zlib.inflateSync)(data, { maxOutputLength: OTLP_DECOMPRESSED_LIMIT });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
      throw new AppError(413, 'payload_too_large', `body: decompresses to more than ${OTLP_DECOMPRESSED_LIMIT} bytes`, { field: 'body' });
    }
    throw new AppError(400, 'invalid_compression', `body: the ${enc} stream is truncated or corrupt (${(err as Error).message})`, { field: 'body' });
  }
}

function decodeTraces(body: Buffer, job: DecodeJob): DecodedTraces {
  const { spans, rejected } = decodeTraceRequest(body, job.contentType, { latestTimeMs: job.latestTimeMs });
  const rows = new Array(spans.length);
  // Each span's objects die as its row is made: only young garbage, in this thread's heap.
  for (let i = 0; i < spans.length; i++) rows[i] = prepareSpanRow(toSpanRow(spans[i]));
  return { rows: joinRows(rows), count: spans.length, rejected };
}

/** The answer to one job, and the buffers to transfer with it. */
export function answer(job: DecodeJob): [DecodeAnswer, ArrayBuffer[]] {
  const { id } = job;
  try {
    const body = decompress(job.body, job.contentEncoding);
    if (job.signal === 'logs') return [{ id, logs: decodeLogsRequest(body, job.contentType) }, []];
    const traces = decodeTraces(body, job);
    return [{ id, traces }, [traces.rows.ends.buffer as ArrayBuffer]];
  } catch (err) {
    // A body that cannot be read as an OTLP request: 415 or 400 naming the body, nothing accepted.
    if (err instanceof OtlpDecodeError) {
      return [{ id, refused: { status: err.code === 'unsupported_media_type' ? 415 : 400, code: err.code, message: `body: ${err.message}`, field: 'body' } }, []];
    }
    if (err instanceof AppError) return [{ id, refused: { status: err.status, code: err.code, message: err.message, field: err.field } }, []];
    return [{ id, failed: err instanceof Error ? (err.stack ?? err.message) : String(err) }, []];
  }
}

// Only in a thread started as a decode worker, not in any worker that imports this file (a test runner's).
if (parentPort && (workerData as { role?: string } | null)?.role === DECODE_WORKER_ROLE) {
  const port = parentPort;
  port.on('message', (job: DecodeJob) => {
    const [message, transfer] = answer(job);
    port.postMessage(message, transfer);
  });
}
