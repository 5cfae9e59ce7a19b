import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Database } from '../../src/db/index.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { enqueueJobs, JobQueue } from '../../src/platform/jobs/index.ts';
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
});
