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

/**
 * `ready`: the engine is loaded (and warmed), jobs may come; then one answer per job. `found`
 * carries the findings packed (packFindings).
 */
export type FromWorker = { kind: 'ready' } | { kind: 'found'; id: number; findings: PackedFindings } | { kind: 'failed'; id: number; error: string };

/**
 * Findings as they cross from a worker to the main thread: their numbers in one array and
 * their strings (each one's type, then the text it found when it has one) in one string.
 * An array of objects is cloned object by object and field by field, on the main thread too
 * (about 17 µs for a 2 KB text's 30 findings, JSON text 13 µs); these are two copies, and the
 * objects are made again as the worker had them (the same fields in the same order, the
 * numbers exact, the strings the same characters).
 */
export interface PackedFindings {
  /** Per finding: start, end, score, the type's length, the found text's length (-1: no text). */
  numbers: Float64Array<ArrayBuffer>;
  strings: string;
}

/** What a finding of the engine (with the text it found) or of a project's pattern (without) holds. */
type AnyFinding = Finding & { text?: string };

const PACKED = 5;

export function packFindings(findings: readonly AnyFinding[]): PackedFindings {
  const numbers = new Float64Array(findings.length * PACKED);
  let strings = '';
  for (let i = 0, k = 0; i < findings.length; i++, k += PACKED) {
    const f = findings[i];
    numbers[k] = f.start;
    numbers[k + 1] = f.end;
    numbers[k + 2] = f.score;
    numbers[k + 3] = f.entity_type.length;
    numbers[k + 4] = f.text === undefined ? -1 : f.text.length;
    strings += f.text === undefined ? f.entity_type : f.entity_type + f.text;
  }
  return { numbers, strings };
}

/** The findings packFindings packed; null (the text then fails, closed) when what came is not such a packing. */
export function unpackFindings(packed: PackedFindings): Finding[] | null {
  const { numbers, strings } = packed;
  if (!(numbers instanceof Float64Array) || typeof strings !== 'string' || numbers.length % PACKED !== 0) return null;
  const out = new Array<AnyFinding>(numbers.length / PACKED);
  let at = 0;
  for (let i = 0, k = 0; i < out.length; i++, k += PACKED) {
    const entity_type = strings.slice(at, (at += numbers[k + 3]));
    const textLength = numbers[k + 4];
    out[i] =
      textLength < 0
        ? { entity_type, start: numbers[k], end: numbers[k + 1], score: numbers[k + 2] }
        : { entity_type, start: numbers[k], end: numbers[k + 1], score: numbers[k + 2], text: strings.slice(at, (at += textLength)) };
  }
  return at === strings.length ? out : null;
}
