/**
 * The messages between the detection pool (detection-pool.ts, on the main thread) and its
 * workers (detection-worker.ts): a policy once per worker, then one job per text; the worker
 * answers jobs one at a time, in the order given.
 */
import type { EntityType } from '../evaluators/index.ts';
import type { Finding } from './detect.ts';

/** workerData.role of a detection worker: the worker's module serves jobs only then. */
export const DETECTION_WORKER_ROLE = 'spyglass-privacy-detection';

/** Tests only: what a worker does with a text holding one of these strings, instead of detecting. */
export interface WorkerFault {
  /** Loops for ever (a detection that never ends). */
  hangOn?: string;
  /** Throws (a detection that fails). */
  throwOn?: string;
  /** Ends its thread (a worker that dies). */
  exitOn?: string;
}

export interface DetectionWorkerData {
  role: typeof DETECTION_WORKER_ROLE;
  fault?: WorkerFault;
}

/** What a worker is told before the first job of a policy (each worker keeps the last few). */
export interface PolicyMessage {
  kind: 'policy';
  policy: number;
  entities: readonly EntityType[];
  patterns: readonly { name: string; pattern: string }[];
}

export interface JobMessage {
  kind: 'job';
  id: number;
  policy: number;
  text: string;
}

export type ToWorker = PolicyMessage | JobMessage;

/** `ready`: the engine is loaded (and warmed), jobs may come; then one answer per job. */
export type FromWorker = { kind: 'ready' } | { kind: 'found'; id: number; findings: Finding[] } | { kind: 'failed'; id: number; error: string };
