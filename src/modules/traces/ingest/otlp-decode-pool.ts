import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { AppError } from '../../../platform/errors.ts';
import type { LogsDecodeResult } from './otlp-logs.ts';
import { DECODE_WORKER_ROLE, type DecodeAnswer, type DecodedTraces, type DecodeJob } from './otlp-decode-protocol.ts';

type Request = Omit<DecodeJob, 'id' | 'body' | 'signal'> & { body: Buffer };

interface Slot {
  worker: Worker;
  /** Jobs posted and not answered, oldest first (the worker answers them in this order). */
  pending: Map<number, { resolve(answer: DecodeAnswer): void; reject(err: Error): void }>;
  /**
   * performance.now() when the oldest pending job became the worker's to do: posted to an idle
   * worker (a new worker's start counts too), or its predecessor answered. Its deadline runs from
   * then, not from its arrival, so requests queued behind a long one do not use up their time waiting.
   */
  oldestJobSince: number;
  /** While jobs are pending: when the oldest job's deadline falls (one timer per worker, not per job). */
  watchdog: NodeJS.Timeout | undefined;
  /** It was given a body that may inflate to LARGE_BODY_BYTES or more: replaced once idle. */
  replaceWhenIdle: boolean;
}

/**
 * A worker that was given a body that may inflate to this much or more is ended once it has no
 * request left, and the next request starts a new one: what such a body leaves behind (the
 * inflated buffer, its decoded strings) is garbage that an idle thread's V8 does not collect,
 * and ending the thread gives it back to the system at once. 16 MiB: far above what exporters
 * send (a 1,000-span request inflates to about 1 MB), so a worker starts again only after the
 * rare giant body (bench/overload.ts flood: RSS 60 s after 16 gzip bodies of 60 MB).
 */
const LARGE_BODY_BYTES = 16 * 1024 * 1024;

export interface OtlpDecoderOptions {
  threads: number;
  /** How long a worker may take over one job before it counts as hung and is terminated. */
  jobDeadlineMs: number;
  logger: Logger;
}

/**
 * OTLP request bodies decoded on worker threads (otlp-decode-worker.ts): the main thread
 * hands over the body's bytes (transferred, not copied) and gets back the rows to write, so
 * /healthz, reads and answers never wait for a request being decoded, nor for the garbage
 * collection of its objects (docs/operating.md: Overload). Workers start at the first request. A worker
 * that dies takes only its requests in progress with it: they answer 503 with Retry-After
 * (nothing of them was stored, nothing acknowledged), and the next request starts a new one.
 * A worker that hangs (a loop on pathological input never answers, never exits) would hold
 * every later OTLP request as well, with /healthz still green: one that has not answered its
 * oldest job within the deadline is treated as dead the same way, and terminated.
 */
export class OtlpDecoder {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: OtlpDecoderOptions) {}

  async traces(request: Request): Promise<DecodedTraces> {
    const answer = await this.run({ ...request, signal: 'traces' });
    if ('traces' in answer) return answer.traces;
    throw this.error(answer);
  }

  async logs(request: Omit<Request, 'latestTimeMs'>): Promise<LogsDecodeResult> {
    const answer = await this.run({ ...request, signal: 'logs', latestTimeMs: 0 });
    if ('logs' in answer) return answer.logs;
    throw this.error(answer);
  }

  /** Stops the workers; requests in progress answer 503. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  /** Requests handed to the workers and not answered yet. */
  get inProgress(): number {
    return this.slots.reduce((n, s) => n + s.pending.size, 0);
  }

  /** Ends the workers as a crash would (tests: what a request in progress then gets, and that the next one works). */
  async crash(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private error(answer: DecodeAnswer): Error {
    if ('refused' in answer) {
      const { status, code, message, field } = answer.refused;
      return new AppError(status, code, message, { field });
    }
    return new Error(`OTLP decode worker: ${'failed' in answer ? answer.failed : 'unexpected answer'}`);
  }

  private run(request: Request & Pick<DecodeJob, 'signal'>): Promise<DecodeAnswer> {
    if (this.closed) return Promise.reject(unavailable('the server is shutting down'));
    const slot = this.slot();
    const id = this.nextId++;
    const { body } = request;
    // The body's memory goes to the worker when it is the body's own (Fastify concatenates a
    // body into a buffer of its own from 4 KiB on); a small body shares Node's pool and is copied.
    const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && !(body.buffer instanceof SharedArrayBuffer);
    const bytes = own ? new Uint8Array(body.buffer, 0, body.byteLength) : new Uint8Array(body);
    if (request.maxInflatedBytes >= LARGE_BODY_BYTES) slot.replaceWhenIdle = true;
    return new Promise<DecodeAnswer>((resolve, reject) => {
      if (slot.pending.size === 0) {
        slot.oldestJobSince = performance.now();
        this.watch(slot);
      }
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ ...request, id, body: bytes } satisfies DecodeJob, [bytes.buffer]);
    });
  }

  /** The worker with the fewest requests in progress, started when there are fewer than `threads`. */
  private slot(): Slot {
    let best: Slot | undefined;
    for (const s of this.slots) if (!best || s.pending.size < best.pending.size) best = s;
    if (best && (best.pending.size === 0 || this.slots.length >= this.options.threads)) return best;
    const slot: Slot = {
      worker: new Worker(new URL('./otlp-decode-worker.entry.mjs', import.meta.url), { workerData: { role: DECODE_WORKER_ROLE } }),
      pending: new Map(),
      oldestJobSince: 0,
      watchdog: undefined,
      replaceWhenIdle: false,
    };
    // An idle worker does not keep the process alive (the server's sockets do).
    slot.worker.unref();
    slot.worker.on('message', (answer: DecodeAnswer) => {
      const p = slot.pending.get(answer.id);
      if (!p) return; // answered 503 already: the worker was retired as hung
      slot.pending.delete(answer.id);
      slot.oldestJobSince = performance.now();
      if (slot.pending.size === 0) {
        this.unwatch(slot);
        if (slot.replaceWhenIdle) this.replace(slot);
      }
      p.resolve(answer);
    });
    // 'error' (an uncaught exception, out of memory) is followed by 'exit', which answers the requests.
    slot.worker.on('error', () => {});
    slot.worker.on('exit', () => this.retire(slot, this.closed ? 'the server is shutting down' : 'the ingest decoder stopped'));
    this.slots.push(slot);
    return slot;
  }

  /** Arms the worker's watchdog for its oldest job's deadline, unless it is armed. */
  private watch(slot: Slot): void {
    if (slot.watchdog) return;
    const left = slot.oldestJobSince + this.options.jobDeadlineMs - performance.now();
    slot.watchdog = setTimeout(() => {
      slot.watchdog = undefined;
      if (slot.pending.size === 0) return;
      if (performance.now() - slot.oldestJobSince < this.options.jobDeadlineMs) return this.watch(slot);
      this.options.logger.warn(
        { worker: slot.worker.threadId, requests: slot.pending.size, deadlineMs: this.options.jobDeadlineMs },
        'OTLP decode worker did not answer a request within its deadline: terminated, its requests answer 503',
      );
      this.retire(slot, 'the ingest decoder stopped answering');
      void slot.worker.terminate();
    }, Math.max(0, left));
    // A hung worker must not keep the process from exiting either.
    slot.watchdog.unref();
  }

  /** Ends an idle worker; the next request starts another. */
  private replace(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    void slot.worker.terminate();
  }

  private unwatch(slot: Slot): void {
    clearTimeout(slot.watchdog);
    slot.watchdog = undefined;
  }

  /**
   * The next request starts a new worker; this one's requests answer 503. A hung worker is
   * retired before it has exited (terminating may wait for native code, such as a
   * decompression, to return), so its 'exit' finds it retired already.
   */
  private retire(slot: Slot, why: string): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    this.unwatch(slot);
    const err = unavailable(why);
    for (const p of slot.pending.values()) p.reject(err);
    slot.pending.clear();
  }
}

function unavailable(why: string): AppError {
  return new AppError(503, 'ingest_unavailable', `${why}: retry after 1 s (nothing of this request was stored)`, { retryAfterSeconds: 1 });
}
