import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Database } from '../../src/db/index.ts';
import { ManualClock, systemClock } from '../../src/platform/clock.ts';
import { enqueueJobs, JobQueue, LEASE_MS } from '../../src/platform/jobs/index.ts';
import { openTestDatabase } from '../support/harness.ts';

/** The durable queue as a caller that just enqueued work sees it: runDue answers only once that work is done. */
describe('job queue', () => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => ({ db, drop } = await openTestDatabase('pglite')), 120_000);
  afterAll(() => drop?.());

  it('runDue waits for a job this process is already running (the background round) instead of answering while it runs', async () => {
    const queue = new JobQueue(db, systemClock);
    const done: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    queue.handle('slow-test', z.object({ name: z.string() }), async (job) => {
      if (job.payload.name === 'first') await gate;
      done.push(job.payload.name);
    });
    await enqueueJobs(db.orm, [{ queue: 'slow-test', dedupeKey: 'slow-test:first', payload: { name: 'first' }, runAt: 0 }], Date.now());
    // The background round claims the job and is held inside its handler.
    const background = queue.runDue();
    await new Promise((r) => setTimeout(r, 50));
    await enqueueJobs(db.orm, [{ queue: 'slow-test', dedupeKey: 'slow-test:second', payload: { name: 'second' }, runAt: 0 }], Date.now());
    let answered = false;
    const onDemand = queue.runDue().then((n) => ((answered = true), n));
    await new Promise((r) => setTimeout(r, 100));
    // The second job ran, but the first is still running: runDue has not answered.
    expect(done).toEqual(['second']);
    expect(answered).toBe(false);
    release();
    expect(await onDemand).toBe(1);
    expect(done).toEqual(['second', 'first']);
    expect(await background).toBe(1);
  });

  it("a job still running keeps its claim when the app's clock jumps past the lease: another process does not run it again", async () => {
    const clock = new ManualClock(Date.parse('2026-11-20T10:00:00Z'));
    const holder = new JobQueue(db, clock);
    const other = new JobQueue(db, clock);
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    holder.handle('lease-test', z.object({}), async () => {
      runs++;
      await gate;
    });
    other.handle('lease-test', z.object({}), async () => void runs++);
    await enqueueJobs(db.orm, [{ queue: 'lease-test', dedupeKey: 'lease-test:1', payload: {}, runAt: clock.now().getTime() }], clock.now().getTime());
    const holding = holder.runDue();
    await expect.poll(() => runs).toBe(1);
    // An hour of the app's time (a test's clock, a clock stepped by NTP): the lease is on the machine's.
    clock.advance(12 * LEASE_MS);
    expect(await other.runDue()).toBe(0);
    release();
    expect(await holding).toBe(1);
    expect(runs).toBe(1);
  });
});
