import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';

/** The durable job queue's table (platform/jobs owns it). Mirrors migrations/0007_monitors_jobs.sql. */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    queue: text('queue').notNull(),
    /** One pending job per key: enqueuing again moves its run time instead of adding a job. */
    dedupeKey: text('dedupe_key').unique(),
    /** Checked against its queue's zod schema when claimed (JobQueue.handle). */
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    runAt: bigint('run_at', { mode: 'number' }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(5),
    lockedUntil: bigint('locked_until', { mode: 'number' }),
    lastError: text('last_error'),
    failedAt: bigint('failed_at', { mode: 'number' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('jobs_due').on(t.queue, t.runAt).where(sql`failed_at IS NULL`)],
);
