/**
 * The messages between the redaction pool (redaction-pool.ts, on the main thread) and its
 * workers (redaction-worker.ts): one job per run of span rows, one answer per job.
 */
import type { MeterEvent, PortableRedaction } from '../privacy/index.ts';
import type { PreparedRows } from './span-rows.ts';

/** workerData.role of a redaction worker: the worker's module serves jobs only then. */
export const REDACTION_WORKER_ROLE = 'spyglass-redaction';

export interface RedactionJob {
  id: number;
  redaction: PortableRedaction;
  rows: PreparedRows;
}

export type RedactionAnswer =
  | { id: number; rows: PreparedRows; events: MeterEvent[] }
  /** Not the client's doing (a bug): the request fails, nothing of it is stored. */
  | { id: number; failed: string };
