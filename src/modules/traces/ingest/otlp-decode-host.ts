/**
 * The OTLP decode worker (entry: otlp-decode-worker.mjs; the main thread's side:
 * otlp-decode-thread.ts). It takes an OTLP/HTTP request body as it came off the socket and
 * does everything up to the rows the store writes: decompression, protobuf or JSON decoding,
 * validation, mapping, pricing and token estimates, the rows' JSON text. The main thread gets
 * back a few long strings, so neither the work nor the garbage of a 1,000-span request ever
 * lands on it (README: Overload).
 */
import { parentPort, workerData } from 'node:worker_threads';
import fs from 'node:fs';
import os from 'node:os';
import zlib from 'node:zlib';
import { AppError } from '../../../platform/errors.ts';
import { joinRowsInPieces, prepareSpanRow, toSpanRow, type PreparedRows, type PreparedSpanRow } from '../span-rows.ts';
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
  /** The rows in pieces that can be committed apart (span-rows.ts joinRowsInPieces). */
  pieces: PreparedRows[];
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
  const rows: PreparedSpanRow[] = new Array(spans.length);
  for (let i = 0; i < spans.length; i++) rows[i] = prepareSpanRow(toSpanRow(spans[i]));
  return { pieces: joinRowsInPieces(rows), count: spans.length, rejected };
}

/**
 * The decode thread's nice value (Linux). Measured on 2 shared cores, 64 OTLP requests of
 * 1,000 spans in flight (bench/overload.ts, PGlite), against the same worker at the
 * process's priority: main-thread event-loop delay p99 33-43 ms instead of 109-140 ms, and
 * 2-3x the spans committed per second (the PGlite thread, the bottleneck, gets the CPU the
 * decoder waited for; requests decoded late are still decoded long before their turn to commit).
 */
const DECODE_THREAD_NICE = 10;

/**
 * Linux: this thread (not the process) yields the CPU to the main thread, which answers
 * /healthz and reads, and to the PGlite thread, when all want it at once.
 */
function lowerPriority(nice: number): void {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, nice);
  } catch {
    // Not Linux, or not allowed: the thread keeps the process's priority.
  }
}

/** The answer to one job, and the buffers to transfer with it. */
export function answer(job: DecodeJob): [DecodeAnswer, ArrayBuffer[]] {
  const { id } = job;
  try {
    const body = decompress(job.body, job.contentEncoding);
    if (job.signal === 'logs') return [{ id, logs: decodeLogsRequest(body, job.contentType) }, []];
    const traces = decodeTraces(body, job);
    return [{ id, traces }, traces.pieces.map((p) => p.ends.buffer as ArrayBuffer)];
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
  lowerPriority(DECODE_THREAD_NICE);
  const port = parentPort;
  port.on('message', (job: DecodeJob) => {
    const [message, transfer] = answer(job);
    port.postMessage(message, transfer);
  });
}
