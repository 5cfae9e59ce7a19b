/**
 * The messages between the detection pool (detection-pool.ts, on the main thread) and its
 * workers (detection-worker.ts): a policy once per worker, then batches of texts; the worker
 * answers each batch with one message, in the order given. Which text of which batch the
 * worker is on, and since when, it writes to memory shared with the pool (DetectionProgress),
 * so that the pool holds each text, not each batch, to the time budget.
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
  /** The memory of DetectionProgress (PROGRESS_BYTES), shared by the worker and the pool. */
  progress: SharedArrayBuffer;
}

export const PROGRESS_BYTES = 16;

/**
 * Where a worker is, in memory it shares with the pool: the batch (its seq) and the index of
 * the text it is searching, and when it started on that text (monotonicMs). The worker
 * writes the time first, then the index (and the batch's seq on its first text), the last two
 * with Atomics, so a reader that sees the same batch and index before and after reading the
 * time read a time no earlier than that text's start: the budget is never cut short.
 */
export class DetectionProgress {
  private readonly at: Int32Array;
  private readonly since: Float64Array;

  constructor(readonly memory: SharedArrayBuffer) {
    this.at = new Int32Array(memory, 0, 2);
    this.since = new Float64Array(memory, 8, 1);
  }

  /** The worker: it starts on text `index` of batch `seq`. */
  begin(seq: number, index: number): void {
    this.since[0] = monotonicMs();
    Atomics.store(this.at, 1, index);
    if (index === 0) Atomics.store(this.at, 0, seq);
  }

  /** The worker: it is done with batch `seq` (the index past its last text), its answer on the way. */
  end(texts: number): void {
    Atomics.store(this.at, 1, texts);
  }

  /** The pool: the batch, the text (the batch's length once done with it) and when the worker started on it. */
  read(): { seq: number; index: number; since: number } {
    for (;;) {
      const seq = Atomics.load(this.at, 0);
      const index = Atomics.load(this.at, 1);
      const since = this.since[0];
      if (Atomics.load(this.at, 0) === seq && Atomics.load(this.at, 1) === index) return { seq, index, since };
    }
  }
}

/** Milliseconds of the process's monotonic clock, the same on every thread (performance.now() counts from each thread's start). */
export function monotonicMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
}

/** What a worker is told before the first job of a policy (each worker keeps the last few). */
export interface PolicyMessage {
  kind: 'policy';
  policy: number;
  entities: readonly EntityType[];
  patterns: readonly { name: string; pattern: string }[];
}

/** Texts to search, one after the other; `seq` numbers the worker's batches from 1. */
export interface BatchMessage {
  kind: 'batch';
  seq: number;
  policy: number;
  texts: string[];
}

export type ToWorker = PolicyMessage | BatchMessage;

/**
 * `ready`: the engine is loaded (and warmed), batches may come; then one answer per batch.
 * `found` carries each text's findings packed (packBatch; a text whose detection threw has
 * none: it fails alone); `failed`, the batch could not be searched at all.
 */
export type FromWorker = { kind: 'ready' } | { kind: 'found'; seq: number; findings: PackedFindings } | { kind: 'failed'; seq: number; error: string };

/**
 * Findings as they cross from a worker to the main thread: their numbers in one array and
 * their strings (each one's type, then the text it found when it has one) in one string.
 * An array of objects is cloned object by object and field by field, on the main thread too
 * (about 17 µs for a 2 KB text's 30 findings, JSON text 13 µs); these are two copies, and the
 * objects are made again as the worker had them (the same fields in the same order, the
 * numbers exact, the strings the same characters).
 */
export interface PackedFindings {
  /** Per text: its findings' number (-1: failed); then per finding: start, end, score, the type's length, the found text's length (-1: no text). */
  numbers: Float64Array<ArrayBuffer>;
  strings: string;
}

/** What a finding of the engine (with the text it found) or of a project's pattern (without) holds. */
type AnyFinding = Finding & { text?: string };

const PACKED = 5;

/**
 * A batch's findings, text by text, in one packing: before each text's findings, their
 * number, or -1 for a text whose detection failed.
 */
export function packBatch(batch: readonly (readonly AnyFinding[] | null)[]): PackedFindings {
  let size = batch.length;
  for (const findings of batch) if (findings) size += findings.length * PACKED;
  const numbers = new Float64Array(size);
  let strings = '';
  let k = 0;
  for (const findings of batch) {
    numbers[k++] = findings ? findings.length : -1;
    if (!findings) continue;
    for (const f of findings) {
      numbers[k] = f.start;
      numbers[k + 1] = f.end;
      numbers[k + 2] = f.score;
      numbers[k + 3] = f.entity_type.length;
      numbers[k + 4] = f.text === undefined ? -1 : f.text.length;
      strings += f.text === undefined ? f.entity_type : f.entity_type + f.text;
      k += PACKED;
    }
  }
  return { numbers, strings };
}

/** The findings of `count` texts packBatch packed (null: a text that failed); null when what came is not such a packing (every text fails, closed). */
export function unpackBatch(packed: PackedFindings, count: number): (Finding[] | null)[] | null {
  const { numbers, strings } = packed;
  if (!(numbers instanceof Float64Array) || typeof strings !== 'string') return null;
  const texts = new Array<AnyFinding[] | null>(count);
  let at = 0;
  let k = 0;
  for (let t = 0; t < count; t++) {
    if (k >= numbers.length) return null;
    const n = numbers[k++];
    if (n === -1) {
      texts[t] = null;
      continue;
    }
    if (!Number.isInteger(n) || n < 0 || k + n * PACKED > numbers.length) return null;
    const out = new Array<AnyFinding>(n);
    for (let i = 0; i < n; i++, k += PACKED) {
      const entity_type = strings.slice(at, (at += numbers[k + 3]));
      const textLength = numbers[k + 4];
      out[i] =
        textLength < 0
          ? { entity_type, start: numbers[k], end: numbers[k + 1], score: numbers[k + 2] }
          : { entity_type, start: numbers[k], end: numbers[k + 1], score: numbers[k + 2], text: strings.slice(at, (at += textLength)) };
    }
    texts[t] = out;
  }
  return k === numbers.length && at === strings.length ? texts : null;
}
