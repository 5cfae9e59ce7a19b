import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import { jsonParam, rows, type Database, type Executor, textArray } from '../../db/index.ts';
import { systemClock, type Clock } from '../clock.ts';
import { Metrics } from '../metrics.ts';

/**
 * A durable job queue in the database: jobs survive restarts, are claimed with
 * FOR UPDATE SKIP LOCKED (several processes on one PostgreSQL never run a job twice at
 * once), retried with exponential backoff and jitter, and kept with their error after the
 * last attempt.
 */
export interface NewJob {
  queue: string;
  payload: Record<string, unknown>;
  runAt: number;
  /** With a key, enqueuing again moves the pending job's run time instead of adding a job. */
  dedupeKey?: string;
  maxAttempts?: number;
}

export interface ClaimedJob<P = Record<string, unknown>> {
  id: number;
  queue: string;
  /** Checked against the queue's payload schema when claimed. */
  payload: P;
  attempts: number;
  maxAttempts: number;
}

export type JobHandler<P = Record<string, unknown>> = (job: ClaimedJob<P>) => Promise<void>;

/** A queue's handler and the schema its jobs' payloads are checked against when claimed. */
interface QueueHandler {
  payload: z.ZodType<unknown>;
  handler: JobHandler<unknown>;
}

/** A failure no retry can mend: the job is marked failed at once. */
export class PermanentJobError extends Error {}

/**
 * Not a failure: the handler gave the job back (the process is closing) and it is due again
 * at `runAt`, without counting the attempt.
 */
export class RescheduleJob extends Error {
  constructor(readonly runAt: number) {
    super('rescheduled');
  }
}

/** Called in the producer's transaction, so a job exists exactly when its cause does. */
export async function enqueueJobs(tx: Executor, jobs: NewJob[], now: number): Promise<void> {
  if (!jobs.length) return;
  const values = jobs.map((j) => ({
    queue: j.queue,
    dedupe_key: j.dedupeKey ?? null,
    payload: j.payload,
    run_at: j.runAt,
    max_attempts: j.maxAttempts ?? 5,
  }));
  await tx.execute(sql`
    INSERT INTO jobs (queue, dedupe_key, payload, run_at, max_attempts, created_at)
    SELECT x.queue, x.dedupe_key, x.payload, x.run_at, x.max_attempts, ${now}::bigint
    FROM jsonb_to_recordset(${jsonParam(values)}::jsonb) AS x(queue text, dedupe_key text, payload jsonb, run_at bigint, max_attempts int)
    ON CONFLICT (dedupe_key) DO UPDATE SET run_at = GREATEST(jobs.run_at, EXCLUDED.run_at), payload = EXCLUDED.payload
      WHERE jobs.locked_until IS NULL AND jobs.failed_at IS NULL`);
}

/** Moves the waiting jobs of a queue whose dedupe key starts with `keyPrefix` to `runAt` (those running or failed stay). */
export async function moveJobs(db: Executor, queue: string, keyPrefix: string, runAt: number): Promise<void> {
  await db.execute(sql`
    UPDATE jobs SET run_at = ${runAt}
    WHERE queue = ${queue} AND starts_with(dedupe_key, ${keyPrefix}) AND locked_until IS NULL AND failed_at IS NULL`);
}

/** Of `keys`, the dedupe keys of jobs not yet done (due later, due now or running; not failed). */
export async function pendingJobKeys(db: Executor, keys: readonly string[]): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const found = await rows<{ dedupe_key: string }>(
    db,
    sql`SELECT dedupe_key FROM jobs WHERE failed_at IS NULL AND dedupe_key = ANY(${textArray(keys)})`,
  );
  return new Set(found.map((r) => r.dedupe_key));
}

export const LEASE_MS = 5 * 60_000;

/**
 * Leases run on the machine's clock, not the app's: a lease says whether the process holding a
 * job is still alive, which only real time tells. The app's clock decides when a job is due;
 * a clock moved by hand (a test's) would otherwise end the lease of a job still running, and
 * another caller ran it a second time (an alert mailed twice).
 */
const leaseNow = (): number => systemClock.now().getTime();

/** Backoff before attempt n+1: 10 s, 40 s, 2.7 min, 10.7 min, ... capped at 1 h, with ±20 % jitter. */
export function backoffMs(attempts: number): number {
  const base = Math.min(3_600_000, 10_000 * 4 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

export class JobQueue {
  private readonly handlers = new Map<string, QueueHandler>();
  /** This process's jobs being run now (by any caller of runDue). */
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly metrics: Metrics = new Metrics(),
    /** How long a claim holds; a handler that works longer calls extendLease before it ends. */
    private readonly leaseMs: number = LEASE_MS,
  ) {}

  /** Keeps a long job claimed by this process (another process takes it over once a lease lapses). */
  async extendLease(jobId: number): Promise<void> {
    const until = leaseNow() + this.leaseMs;
    await this.db.orm.execute(sql`UPDATE jobs SET locked_until = ${until} WHERE id = ${jobId} AND locked_until IS NOT NULL`);
  }

  /**
   * Runs the queue's jobs with `handler`. Each payload is checked against `payload` when the
   * job is claimed: one that fails (written by an older version, or by hand) fails its job at
   * once with an error naming the field, without reaching the handler.
   */
  handle<P>(queue: string, payload: z.ZodType<P>, handler: JobHandler<P>): void {
    this.handlers.set(queue, { payload, handler: handler as JobHandler<unknown> });
  }

  /**
   * Claims and runs due jobs until none is due (or `limit` ran); answers how many ran. Jobs
   * this process is already running (the background round's) are waited for, so that when it
   * answers nothing due in this process is left half done (what a caller that just enqueued
   * work, such as a test, expects).
   */
  async runDue(limit = 100): Promise<number> {
    let ran = 0;
    while (ran < limit) {
      const batch = await this.claim(Math.min(10, limit - ran));
      if (!batch.length) {
        if (!this.running.size) break;
        await Promise.allSettled(this.running);
        continue;
      }
      for (const job of batch) {
        const run = this.run(job);
        this.running.add(run);
        await run.finally(() => this.running.delete(run));
      }
      ran += batch.length;
    }
    return ran;
  }

  private async claim(n: number): Promise<ClaimedJob[]> {
    const now = this.clock.now().getTime();
    const leaseAt = leaseNow();
    const queues = textArray([...this.handlers.keys()]);
    const claimed = await rows<Record<string, unknown>>(
      this.db.orm,
      sql`UPDATE jobs SET locked_until = ${leaseAt + this.leaseMs}, attempts = attempts + 1
          WHERE id IN (
            SELECT id FROM jobs
            WHERE queue = ANY(${queues}) AND failed_at IS NULL
              AND run_at <= ${now} AND (locked_until IS NULL OR locked_until < ${leaseAt})
            ORDER BY run_at LIMIT ${n} FOR UPDATE SKIP LOCKED)
          RETURNING id::int AS id, queue, payload, attempts, max_attempts`,
    );
    return claimed.map((r) => ({
      id: Number(r.id),
      queue: r.queue as string,
      payload: r.payload as Record<string, unknown>,
      attempts: Number(r.attempts),
      maxAttempts: Number(r.max_attempts),
    }));
  }

  private async run(job: ClaimedJob): Promise<void> {
    try {
      const { payload, handler } = this.handlers.get(job.queue)!;
      const checked = payload.safeParse(job.payload);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        const field = issue.path.length ? issue.path.join('.') : '(payload)';
        throw new PermanentJobError(`invalid ${job.queue} job payload: ${field}: ${issue.message}`);
      }
      await handler({ ...job, payload: checked.data });
      await this.db.orm.execute(sql`DELETE FROM jobs WHERE id = ${job.id}`);
      this.metrics.jobFinished(job.queue, 'done');
    } catch (err) {
      const now = this.clock.now().getTime();
      if (err instanceof RescheduleJob) {
        await this.db.orm.execute(sql`UPDATE jobs SET run_at = ${err.runAt}, locked_until = NULL, attempts = attempts - 1 WHERE id = ${job.id}`);
        return;
      }
      const message = err instanceof Error ? err.message : String(err);
      if (job.attempts >= job.maxAttempts || err instanceof PermanentJobError) {
        await this.db.orm.execute(sql`UPDATE jobs SET failed_at = ${now}, locked_until = NULL, last_error = ${message} WHERE id = ${job.id}`);
        this.metrics.jobFinished(job.queue, 'failed');
      } else {
        await this.db.orm.execute(
          sql`UPDATE jobs SET run_at = ${now + backoffMs(job.attempts)}, locked_until = NULL, last_error = ${message} WHERE id = ${job.id}`,
        );
        this.metrics.jobFinished(job.queue, 'retrying');
      }
    }
  }

  /**
   * Makes every claimed, unfinished job claimable again at once, instead of when its lease
   * ends. Only for a database that no other process can use (PGlite): the claimer is gone.
   */
  async releaseClaims(): Promise<number> {
    const released = await rows<{ id: number }>(
      this.db.orm,
      sql`UPDATE jobs SET locked_until = NULL WHERE locked_until IS NOT NULL AND failed_at IS NULL RETURNING id`,
    );
    return released.length;
  }

  /** Jobs of every queue by state, read from the database (so every process sees the same). */
  async counts(): Promise<{ queue: string; queued: number; running: number; failed: number }[]> {
    const leaseAt = leaseNow();
    const found = await rows<{ queue: string; queued: number; running: number; failed: number }>(
      this.db.orm,
      sql`SELECT queue,
            count(*) FILTER (WHERE failed_at IS NULL AND (locked_until IS NULL OR locked_until < ${leaseAt}))::int AS queued,
            count(*) FILTER (WHERE failed_at IS NULL AND locked_until >= ${leaseAt})::int AS running,
            count(*) FILTER (WHERE failed_at IS NOT NULL)::int AS failed
          FROM jobs GROUP BY queue ORDER BY queue`,
    );
    const known = new Map(found.map((r) => [r.queue, { queue: r.queue, queued: Number(r.queued), running: Number(r.running), failed: Number(r.failed) }]));
    for (const queue of this.handlers.keys()) if (!known.has(queue)) known.set(queue, { queue, queued: 0, running: 0, failed: 0 });
    return [...known.values()];
  }

  async stats(queue: string): Promise<{ pending: number; failed: number }> {
    const [r] = await rows<{ pending: number; failed: number }>(
      this.db.orm,
      sql`SELECT count(*) FILTER (WHERE failed_at IS NULL)::int AS pending, count(*) FILTER (WHERE failed_at IS NOT NULL)::int AS failed FROM jobs WHERE queue = ${queue}`,
    );
    return { pending: Number(r.pending), failed: Number(r.failed) };
  }
}
