import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { EntityType } from '../evaluators/index.ts';
import type { Finding } from './detect.ts';
import { DETECTION_WORKER_ROLE, unpackFindings, type DetectionWorkerData, type FromWorker, type ToWorker, type WorkerFault } from './detection-protocol.ts';

/** What a job needs of a project's policy: the engine's entity types and the project's patterns, under a key the workers remember them by. */
export interface DetectionPolicy {
  readonly detectionKey: number;
  readonly entities: readonly EntityType[];
  readonly patterns: readonly { name: string; pattern: string }[];
}

export interface DetectionPoolOptions {
  /** Worker threads at most (started on first use, all at once). */
  threads: number;
  /** How long a worker may spend on one text before it is terminated and the text fails. */
  budgetMs: number;
  /** How long a new worker may take to load the engine before it counts as broken. */
  startTimeoutMs?: number;
  /**
   * Workers with nothing to do for this long are stopped (each holds its own engine, about
   * 90 MB); the next text starts them again. Default 5 minutes.
   */
  idleMs?: number;
  logger?: Pick<Logger, 'warn'>;
  /** Tests only: what the workers do with texts holding given strings. */
  fault?: WorkerFault;
}

interface Job {
  id: number;
  text: string;
  policy: DetectionPolicy;
  done(findings: Finding[] | null): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Jobs posted and not answered, oldest first: the worker does the first, the rest wait in its queue. */
  held: Job[];
  /** performance.now() when the first held job became the worker's to do (posted to it idle, or its predecessor answered). */
  since: number;
  /** While jobs are held: fires when the first one's budget runs out. Before ready: the start's deadline. */
  timer: NodeJS.Timeout | undefined;
  /** Policies sent to this worker. */
  policies: Set<number>;
}

/**
 * Jobs a worker holds at once: while it detects in one text, the next is in its queue, so it
 * never waits for the main thread between texts. Only the first can be the one running past
 * its budget; the other goes back to the queue when the worker is terminated.
 */
const HELD_PER_WORKER = 2;
/** Loading the engine (word lists, gazetteers, phone metadata) takes seconds on a busy machine. */
const DEFAULT_START_TIMEOUT_MS = 120_000;
const DEFAULT_IDLE_MS = 5 * 60_000;

/**
 * PII detection on worker threads (detection-worker.ts), so that the main thread, which answers
 * /healthz, searches and every other request, never runs it, and a request's texts are searched
 * on all cores at once. Each worker loads the engine once. Workers start when first asked
 * (a project turning privacy on, or the first text), not with the server.
 *
 * The time budget is enforced while detection runs: a worker that has not answered a text
 * within the budget is terminated and replaced, the text answers null (its value is then
 * stored as [redaction failed]) and the other text it held goes back to the queue. A worker
 * that dies answers null for the text it was on in the same way; one that cannot start at
 * all fails every text waiting (fail closed), and the next text tries again.
 *
 * Workers left with nothing to do for `idleMs` (no text waiting or held) are stopped, all
 * together, and started again by the next text: a server whose projects send nothing to
 * detect for a while gives their memory back.
 */
export class DetectionPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** While the pool is idle with workers running: fires when they have been idle for `idleMs`. */
  private idleTimer: NodeJS.Timeout | undefined;
  /** Times the workers were stopped for being idle (tests, logs). */
  idleStops = 0;
  /** Workers terminated for running past the budget, or ended otherwise while holding a text (tests, logs). */
  replaced = 0;

  constructor(private readonly options: DetectionPoolOptions) {}

  get threads(): number {
    return this.options.threads;
  }

  /** Workers started (running or loading). */
  get size(): number {
    return this.slots.length;
  }

  /** Starts the workers, unless they run: they load the engine while nothing waits for them. */
  start(): void {
    if (this.closed) return;
    while (this.slots.length < this.options.threads) this.spawn();
    this.checkIdle();
  }

  /** What the engine and the policy's patterns find in `text`; null when detection failed or ran past the budget. */
  detect(text: string, policy: DetectionPolicy): Promise<Finding[] | null> {
    if (this.closed) return Promise.resolve(null);
    return new Promise((done) => {
      this.queue.push({ id: this.nextId++, text, policy, done });
      this.start();
      this.dispatch();
    });
  }

  /** Stops the workers; texts waiting or in progress answer null. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const slots = this.slots.splice(0);
    for (const job of this.queue.splice(0)) job.done(null);
    for (const s of slots) {
      clearTimeout(s.timer);
      for (const job of s.held.splice(0)) job.done(null);
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private spawn(): void {
    const workerData: DetectionWorkerData = { role: DETECTION_WORKER_ROLE, ...(this.options.fault ? { fault: this.options.fault } : {}) };
    const slot: Slot = {
      worker: new Worker(new URL('./detection-worker.entry.mjs', import.meta.url), { workerData }),
      ready: false,
      held: [],
      since: 0,
      timer: undefined,
      policies: new Set(),
    };
    // An idle worker does not keep the process alive (the server's sockets do).
    slot.worker.unref();
    slot.timer = setTimeout(() => {
      slot.timer = undefined;
      this.options.logger?.warn({ worker: slot.worker.threadId, timeoutMs: this.startTimeoutMs }, 'privacy detection worker did not start in time: terminated');
      this.failedToStart(slot);
      void slot.worker.terminate();
    }, this.startTimeoutMs);
    slot.timer.unref();
    slot.worker.on('message', (m: FromWorker) => this.answer(slot, m));
    // 'error' (an uncaught exception, out of memory) is followed by 'exit', which settles the texts.
    slot.worker.on('error', () => {});
    slot.worker.on('exit', () => {
      if (!this.slots.includes(slot)) return; // retired already (past its budget, or closed)
      if (!slot.ready) return this.failedToStart(slot);
      this.options.logger?.warn({ worker: slot.worker.threadId, texts: slot.held.length }, 'privacy detection worker stopped: the text it was on is stored as [redaction failed]');
      this.retire(slot);
    });
    this.slots.push(slot);
  }

  private get startTimeoutMs(): number {
    return this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  }

  private answer(slot: Slot, m: FromWorker): void {
    if (!this.slots.includes(slot)) return;
    if (m.kind === 'ready') {
      slot.ready = true;
      clearTimeout(slot.timer);
      slot.timer = undefined;
      this.dispatch();
      return;
    }
    const job = slot.held[0];
    if (!job || job.id !== m.id) return;
    slot.held.shift();
    slot.since = performance.now();
    this.unwatch(slot);
    if (slot.held.length > 0) this.watch(slot);
    job.done(m.kind === 'found' ? unpackFindings(m.findings) : null);
    this.dispatch();
    this.checkIdle();
  }

  /** No text waiting, none held by a worker. */
  private get idle(): boolean {
    return this.queue.length === 0 && this.slots.every((s) => s.held.length === 0);
  }

  /** Nothing waiting or held: the workers' idle time starts (once); otherwise it stops. */
  private checkIdle(): void {
    if (!this.idle || this.slots.length === 0 || this.closed) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
      return;
    }
    if (this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.closed || !this.idle) return;
      this.idleStops++;
      for (const slot of this.slots.splice(0)) {
        this.unwatch(slot);
        void slot.worker.terminate();
      }
    }, this.options.idleMs ?? DEFAULT_IDLE_MS);
    this.idleTimer.unref();
  }

  /** Hands queued texts to ready workers with room, the least busy first. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      let best: Slot | undefined;
      for (const s of this.slots) if (s.ready && s.held.length < HELD_PER_WORKER && (!best || s.held.length < best.held.length)) best = s;
      if (!best) return;
      const job = this.queue.shift()!;
      const { policy } = job;
      if (!best.policies.has(policy.detectionKey)) {
        best.policies.add(policy.detectionKey);
        this.post(best, { kind: 'policy', policy: policy.detectionKey, entities: policy.entities, patterns: policy.patterns });
      }
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
      best.held.push(job);
      if (best.held.length === 1) {
        best.since = performance.now();
        this.watch(best);
      }
      this.post(best, { kind: 'job', id: job.id, policy: policy.detectionKey, text: job.text });
    }
  }

  private post(slot: Slot, m: ToWorker): void {
    slot.worker.postMessage(m);
  }

  /** Arms the worker's timer for its first held text's budget. */
  private watch(slot: Slot): void {
    const left = slot.since + this.options.budgetMs - performance.now();
    slot.timer = setTimeout(() => {
      slot.timer = undefined;
      if (slot.held.length === 0 || !this.slots.includes(slot)) return;
      if (performance.now() - slot.since < this.options.budgetMs) return this.watch(slot);
      this.options.logger?.warn(
        { worker: slot.worker.threadId, budgetMs: this.options.budgetMs },
        'privacy detection ran past its time budget: worker terminated and replaced, the text is stored as [redaction failed]',
      );
      this.retire(slot);
      void slot.worker.terminate();
    }, Math.max(0, left));
    slot.timer.unref();
  }

  private unwatch(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
  }

  /** A worker gone while holding texts: the first fails (it was on it), the rest wait for another; a new worker replaces it. */
  private retire(slot: Slot): void {
    this.remove(slot);
    this.replaced++;
    const [first, ...rest] = slot.held.splice(0);
    this.queue.unshift(...rest);
    first?.done(null);
    if (this.closed) return;
    if (this.queue.length > 0) this.start();
    this.dispatch();
    this.checkIdle();
  }

  /**
   * A worker that could not load the engine. When it was the last one, every text waiting
   * fails (none could be searched: fail closed, not wait for ever); the next text starts
   * workers again.
   */
  private failedToStart(slot: Slot): void {
    this.remove(slot);
    this.checkIdle();
    if (this.slots.length > 0) return;
    for (const job of this.queue.splice(0)) job.done(null);
  }

  private remove(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    this.unwatch(slot);
  }
}
