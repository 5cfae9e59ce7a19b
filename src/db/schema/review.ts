import { sql } from 'drizzle-orm';
import { bigserial, index, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

// The review module's tables: queues and their items.

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** The review module's queues. Mirrors migrations/0025_review.sql. */
export const reviewQueues = pgTable(
  'review_queues',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    scoreConfigIds: text('score_config_ids').array().notNull().default(sql`'{}'`),
    memberUserIds: text('member_user_ids').array().notNull().default(sql`'{}'`),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [unique().on(t.projectId, t.name)],
);

/** The review module's queue items: a trace, one of its spans, or a whole thread (thread_id set, trace_id ''). Mirrors migrations/0025_review.sql and 0055_thread_review.sql. */
export const reviewQueueItems = pgTable(
  'review_queue_items',
  {
    id: text('id').primaryKey(),
    queueId: text('queue_id').notNull(),
    projectId: text('project_id').notNull(),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    traceId: text('trace_id').notNull(),
    spanId: text('span_id').notNull().default(''),
    threadId: text('thread_id').notNull().default(''),
    source: text('source', { enum: ['traces', 'filter', 'experiment', 'monitor', 'threads'] }).notNull(),
    status: text('status', { enum: ['pending', 'completed', 'skipped'] }).notNull().default('pending'),
    claimedBy: text('claimed_by'),
    claimExpiresAt: at('claim_expires_at'),
    doneBy: text('done_by'),
    doneAt: at('done_at'),
    annotationId: text('annotation_id'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [unique().on(t.queueId, t.threadId, t.traceId, t.spanId), index('review_queue_items_next').on(t.queueId, t.status, t.seq)],
);
