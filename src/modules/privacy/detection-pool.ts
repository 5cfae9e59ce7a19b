import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { EntityType } from '../evaluators/index.ts';
import type { Finding } from './detect.ts';
import { DETECTION_WORKER_ROLE, DetectionProgress, monotonicMs, PROGRESS_BYTES, unpackBatch, type DetectionWorkerData, type FromWorker, type ToWorker, type WorkerFault } from './detection-protocol.ts';

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
  text: string;
  policy: DetectionPolicy;
  done(findings: Finding[] | null): void;
}

/** Jobs of one policy posted to a worker in one message. */
interface Batch {
  seq: number;
  jobs: Job[];
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Batches posted and not answered, oldest first: the worker does the first, the rest wait in its queue. */
  held: Batch[];
  /** The seq of the last batch posted to this worker. */
  seq: number;
  /** Which text the worker is on, and since when (written by the worker). */
  progress: DetectionProgress;
  /** While batches are held: fires when the text the worker is on may have run out of budget. Before ready: the start's deadline. */
  timer: NodeJS.Timeout | undefined;
  /** Policies sent to this worker. */
  policies: Set<number>;
}

/**
 * Batches a worker holds at once: while it detects in one, the next is in its queue, so it
 * never waits for the main thread between batches. Only the text the worker is on can be the
 * one running past its budget; the others held go back to the queue when it is terminated.
 */
const HELD_PER_WORKER = 2;
/**
 * Texts in one batch at most: a message each way per batch instead of per text (posting,
 * waking the other thread, a timer each), while the texts of one request still spread over
 * every worker (a batch takes a share of what waits, see dispatch).
 */
const BATCH_MAX = 16;
/** Loading the engine (word lists, gazetteers, phone metadata) takes seconds on a busy machine. */
const DEFAULT_START_TIMEOUT_MS = 120_000;
const DEFAULT_IDLE_MS = 5 * 60_000;

/**
 * PII detection on worker threads (detection-worker.ts), so that the main thread, which answers
 * /healthz, searches and every other request, never runs it, and a request's texts are searched
 * on all cores at once. Each worker loads the engine once. Workers start when first asked
 * (a project turning privacy on, or the first text), not with the server.
 *
 * Texts go to a worker in batches, one message each way per batch; the time budget is still
 * each text's: the worker writes which text it is on, and since when, to memory the pool
 * reads (DetectionProgress). A worker on one text for longer than the budget is terminated
 * and replaced, that text answers null (its value is then stored as [redaction failed]) and
 * every other text it held, searched or not (their answers went with it), goes back to the
 * queue. A text whose detection throws answers null alone. A worker that dies answers null
 * for the text it was on in the same way; one that cannot start at all fails every text
 * waiting (fail closed), and the next text tries again.
 *
 * Workers left with nothing to do for `idleMs` (no text waiting or held) are stopped, all
 * together, and started again by the next text: a server whose projects send nothing to
 * detect for a while gives their memory back.
 */
export class DetectionPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
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

  /** What the engine and the policy's patterns find in each of `texts`, in their order; null for a text whose detection failed or ran past the budget. */
  detectAll(texts: readonly string[], policy: DetectionPolicy): Promise<(Finding[] | null)[]> {
    if (this.closed || texts.length === 0) return Promise.resolve(texts.map(() => null));
    return new Promise((resolve) => {
      const found = new Array<Finding[] | null>(texts.length);
      let left = texts.length;
      for (let i = 0; i < texts.length; i++) {
        this.queue.push({
          text: texts[i],
          policy,
          done: (findings) => {
            found[i] = findings;
            if (--left === 0) resolve(found);
          },
        });
      }
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
      for (const batch of s.held.splice(0)) for (const job of batch.jobs) job.done(null);
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private spawn(): void {
    const progress = new DetectionProgress(new SharedArrayBuffer(PROGRESS_BYTES));
    const workerData: DetectionWorkerData = { role: DETECTION_WORKER_ROLE, progress: progress.memory, ...(this.options.fault ? { fault: this.options.fault } : {}) };
    const slot: Slot = {
      worker: new Worker(new URL('./detection-worker.entry.mjs', import.meta.url), { workerData }),
      ready: false,
      held: [],
      seq: 0,
      progress,
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
    const batch = slot.held[0];
    if (!batch || batch.seq !== m.seq) return;
    slot.held.shift();
    this.unwatch(slot);
    if (slot.held.length > 0) this.watch(slot);
    const found = m.kind === 'found' ? unpackBatch(m.findings, batch.jobs.length) : null;
    for (let i = 0; i < batch.jobs.length; i++) batch.jobs[i].done(found ? found[i] : null);
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

  /**
   * Hands queued texts to ready workers with room, the least busy first, in batches of one
   * policy: each a share of what waits (so that every worker gets some), at most BATCH_MAX.
   */
  private dispatch(): void {
    while (this.queue.length > 0) {
      let best: Slot | undefined;
      for (const s of this.slots) if (s.ready && s.held.length < HELD_PER_WORKER && (!best || s.held.length < best.held.length)) best = s;
      if (!best) return;
      const { policy } = this.queue[0];
      const share = Math.min(BATCH_MAX, Math.ceil(this.queue.length / (this.options.threads * HELD_PER_WORKER)));
      let size = 1;
      while (size < share && size < this.queue.length && this.queue[size].policy === policy) size++;
      const jobs = this.queue.splice(0, size);
      if (!best.policies.has(policy.detectionKey)) {
        best.policies.add(policy.detectionKey);
        this.post(best, { kind: 'policy', policy: policy.detectionKey, entities: policy.entities, patterns: policy.patterns });
      }
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
      const batch: Batch = { seq: ++best.seq, jobs };
      best.held.push(batch);
      if (best.held.length === 1) this.watch(best);
      this.post(best, { kind: 'batch', seq: batch.seq, policy: policy.detectionKey, texts: jobs.map((j) => j.text) });
    }
  }

  private post(slot: Slot, m: ToWorker): void {
    slot.worker.postMessage(m);
  }

  /**
   * Arms the worker's timer: when it fires, the text the worker is on (of its first held
   * batch) has run past the budget, or the timer is armed again for when that text would.
   * A batch not started yet gets a whole budget from now.
   */
  private watch(slot: Slot, delay = this.options.budgetMs): void {
    slot.timer = setTimeout(() => {
      slot.timer = undefined;
      if (slot.held.length === 0 || !this.slots.includes(slot)) return;
      const on = slot.progress.read();
      // Not started on the batch yet, or done with it (its answer not read yet): nothing runs past a budget.
      if (on.seq !== slot.held[0].seq || on.index >= slot.held[0].jobs.length) return this.watch(slot);
      const left = on.since + this.options.budgetMs - monotonicMs();
      if (left > 0) return this.watch(slot, left);
      this.options.logger?.warn(
        { worker: slot.worker.threadId, budgetMs: this.options.budgetMs },
        'privacy detection ran past its time budget: worker terminated and replaced, the text is stored as [redaction failed]',
      );
      this.retire(slot);
      void slot.worker.terminate();
    }, Math.max(0, delay));
    slot.timer.unref();
  }

  private unwatch(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
  }

  /**
   * A worker gone while holding texts: the one it was on fails (the first held, when it had
   * not started on any: one text fails rather than a text that kills workers coming back for
   * ever); the rest wait for another; a new worker replaces it.
   */
  private retire(slot: Slot): void {
    this.remove(slot);
    this.replaced++;
    const held = slot.held.splice(0);
    const jobs = held.flatMap((b) => b.jobs);
    const on = slot.progress.read();
    const at = held.length > 0 && on.seq === held[0].seq && on.index < held[0].jobs.length ? on.index : 0;
    const [failed] = jobs.splice(at, 1);
    this.queue.unshift(...jobs);
    failed?.done(null);
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
