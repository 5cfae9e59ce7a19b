import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { AppError } from '../../platform/errors.ts';
import type { MeterEvent, PortableRedaction } from '../privacy/index.ts';
import { REDACTION_WORKER_ROLE, type RedactionAnswer, type RedactionJob } from './redaction-protocol.ts';
import type { PreparedRows } from './span-rows.ts';

interface Slot {
  worker: Worker;
  pending: Map<number, { resolve(answer: RedactionAnswer): void; reject(err: Error): void }>;
}

/**
 * Threads redacting span rows (privacy at ingest): one per core, up to 4. Detection costs
 * about a millisecond of CPU per 2 KB of text; on the main thread it ran on one core while
 * the other waited, and held reads and the transactions' work meanwhile (docs/performance.md:
 * Privacy at ingest).
 */
export const REDACTION_THREADS = Math.max(1, Math.min(4, os.availableParallelism()));

/**
 * Privacy at ingest on worker threads (redaction-worker.ts): the main thread hands over a run
 * of span rows and the project's redaction as plain data, and gets the rows back redacted.
 * Workers start at the first job and stay (the detection lists they load take seconds). A
 * worker that dies, or does not answer a job within its deadline, takes its jobs with it: their
 * requests answer 503 with Retry-After, nothing of them stored (fails closed), and the next job
 * starts a new worker.
 */
export class RedactionPool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    readonly threads: number = REDACTION_THREADS,
    /**
     * How long one job may take before its worker counts as stuck and is ended. Each value has
     * its own time budget (2 s) after which it is stored as [redaction failed]; a job is at
     * most a piece of 250 spans.
     */
    private readonly jobDeadlineMs = 120_000,
  ) {}

  /** The rows redacted, and what to count in /metrics for them. */
  async redact(rows: PreparedRows, redaction: PortableRedaction): Promise<{ rows: PreparedRows; events: MeterEvent[] }> {
    if (this.closed) throw unavailable('the server is shutting down');
    const slot = this.slot();
    const id = this.nextId++;
    const answer = await new Promise<RedactionAnswer>((resolve, reject) => {
      // A worker that has not answered a job by its deadline is stuck: ended, its jobs answer 503.
      const deadline = setTimeout(() => {
        if (slot.pending.has(id)) void slot.worker.terminate();
      }, this.jobDeadlineMs);
      deadline.unref();
      const done = () => clearTimeout(deadline);
      slot.pending.set(id, { resolve: (a) => (done(), resolve(a)), reject: (e) => (done(), reject(e)) });
      slot.worker.postMessage({ id, redaction, rows } satisfies RedactionJob, [rows.ends.buffer as ArrayBuffer]);
    });
    if ('failed' in answer) throw new Error(`redaction worker: ${answer.failed}`);
    return answer;
  }

  /** Jobs handed to the workers and not answered yet. */
  get inProgress(): number {
    return this.slots.reduce((n, s) => n + s.pending.size, 0);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  /** Ends the workers as a crash would (tests: what a request in progress then gets, and that the next one works). */
  async crash(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  /** The worker with the fewest jobs in progress, started when there are fewer than `threads` and none is idle. */
  private slot(): Slot {
    let best: Slot | undefined;
    for (const s of this.slots) if (!best || s.pending.size < best.pending.size) best = s;
    if (best && (best.pending.size === 0 || this.slots.length >= this.threads)) return best;
    const slot: Slot = {
      worker: new Worker(new URL('./redaction-worker.entry.mjs', import.meta.url), { workerData: { role: REDACTION_WORKER_ROLE } }),
      pending: new Map(),
    };
    // An idle worker does not keep the process alive (the server's sockets do).
    slot.worker.unref();
    slot.worker.on('message', (answer: RedactionAnswer) => {
      const p = slot.pending.get(answer.id);
      if (!p) return;
      slot.pending.delete(answer.id);
      p.resolve(answer);
    });
    // 'error' (an uncaught exception, out of memory) is followed by 'exit', which answers the jobs.
    slot.worker.on('error', () => {});
    slot.worker.on('exit', () => this.retire(slot, this.closed ? 'the server is shutting down' : 'privacy at ingest stopped'));
    this.slots.push(slot);
    return slot;
  }

  private retire(slot: Slot, why: string): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    const err = unavailable(why);
    for (const p of slot.pending.values()) p.reject(err);
    slot.pending.clear();
  }
}

function unavailable(why: string): AppError {
  return new AppError(503, 'ingest_unavailable', `${why}: retry after 1 s (nothing of this request was stored)`, { retryAfterSeconds: 1 });
}
