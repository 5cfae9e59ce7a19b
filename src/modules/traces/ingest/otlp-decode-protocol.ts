/**
 * The messages between the OTLP decode pool (otlp-decode-pool.ts, on the main thread) and its
 * workers (otlp-decode-worker.ts): one job per request body, one answer per job, in order.
 */
import type { PreparedRows } from '../span-rows.ts';
import type { LogsDecodeResult } from './otlp-logs.ts';

/** workerData.role of a decode worker: the worker's module serves jobs only then. */
export const DECODE_WORKER_ROLE = 'spyglass-otlp-decode';

export interface DecodeJob {
  id: number;
  signal: 'traces' | 'logs';
  body: Uint8Array;
  contentType: string;
  contentEncoding: string;
  /** Epoch ms past which a span's start or end is refused (traces). */
  latestTimeMs: number;
  /** What the body may inflate to: the bytes the main thread admitted it for (inflatedSizeBound). */
  maxInflatedBytes: number;
  /** A span's values past this size keep their first part (truncate.ts). */
  maxValueBytes: number;
}

/** A trace request's accepted spans as rows, and what was refused of it. */
export interface DecodedTraces {
  /** The rows in pieces that can be committed apart (span-rows.ts joinRowsInPieces). */
  pieces: PreparedRows[];
  count: number;
  rejected: { count: number; messages: string[] };
  /** Spans kept with values cut to the size cap (OTLP's partial success reports them, none rejected). */
  truncated: { count: number; messages: string[] };
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
