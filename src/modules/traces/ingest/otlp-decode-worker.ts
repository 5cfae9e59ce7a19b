/**
 * The OTLP decode worker (entry: otlp-decode-worker.entry.mjs; the main thread's side:
 * otlp-decode-pool.ts; the messages between them: otlp-decode-protocol.ts). It takes an OTLP/HTTP request body as it came off the socket and
 * does everything up to the rows the store writes: decompression (inflate.ts), protobuf or JSON decoding,
 * validation, mapping, pricing and token estimates, the rows' JSON text. The main thread gets
 * back a few long strings, so neither the work nor the garbage of a 1,000-span request ever
 * lands on it (docs/operating.md: Overload).
 */
import { parentPort, workerData } from 'node:worker_threads';
import fs from 'node:fs';
import os from 'node:os';
import { AppError } from '../../../platform/errors.ts';
import { joinRowsInPieces, prepareSpanRow, toSpanRow, type PreparedSpanRow } from '../span-rows.ts';
import { DECODE_WORKER_ROLE, type DecodeAnswer, type DecodedTraces, type DecodeJob } from './otlp-decode-protocol.ts';
import { decodeTraceRequest, MAX_REJECTION_MESSAGES, OtlpDecodeError } from './otlp.ts';
import { decodeLogsRequest } from './otlp-logs.ts';
import { decompress } from './inflate.ts';
import { truncateAttributes, truncateSpan } from './truncate.ts';

function decodeTraces(body: Buffer, job: DecodeJob): DecodedTraces {
  const { spans, rejected } = decodeTraceRequest(body, job.contentType, { latestTimeMs: job.latestTimeMs });
  const rows = new Array<PreparedSpanRow>(spans.length);
  const truncated = { count: 0, messages: [] as string[] };
  for (let i = 0; i < spans.length; i++) {
    const cut = truncateSpan(spans[i], job.maxValueBytes);
    if (cut.length > 0 && truncated.count++ < MAX_REJECTION_MESSAGES) {
      truncated.messages.push(`span ${spans[i].span_id}: cut to the first ${job.maxValueBytes} bytes (kept, marked spyglass.truncated): ${cut.join(', ')}`);
    }
    rows[i] = prepareSpanRow(toSpanRow(spans[i]));
  }
  const unlisted = truncated.count - truncated.messages.length;
  if (unlisted > 0) truncated.messages.push(`... and ${unlisted} more truncated span${unlisted === 1 ? '' : 's'}`);
  return { pieces: joinRowsInPieces(rows), count: spans.length, rejected, truncated };
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
    const body = decompress(job.body, job.contentEncoding, job.maxInflatedBytes);
    if (job.signal === 'logs') {
      const logs = decodeLogsRequest(body, job.contentType);
      for (const span of logs.spans) for (const e of span.events) truncateAttributes(e.attributes, job.maxValueBytes);
      return [{ id, logs }, []];
    }
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
