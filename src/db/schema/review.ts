import { sql } from 'drizzle-orm';
import { bigserial, doublePrecision, index, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** The annotations module's score configs. Mirrors migrations/0025_review.sql. */
export const scoreConfigs = pgTable(
  'score_configs',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    kind: text('kind', { enum: ['numeric', 'boolean', 'categorical'] }).notNull(),
    minValue: doublePrecision('min_value'),
    maxValue: doublePrecision('max_value'),
    categories: text('categories').array().notNull().default(sql`'{}'`),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [unique().on(t.projectId, t.name)],
);

/** The annotations module's scores (one per annotation and config). Mirrors migrations/0025_review.sql. */
export const annotationScores = pgTable(
  'annotation_scores',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    annotationId: text('annotation_id').notNull(),
    traceId: text('trace_id').notNull(),
    configId: text('config_id').notNull(),
    numberValue: doublePrecision('number_value'),
    textValue: text('text_value'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [unique().on(t.annotationId, t.configId), index('annotation_scores_trace').on(t.projectId, t.traceId), index('annotation_scores_config').on(t.configId, t.createdAt)],
);

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

/** The annotations module's reviews of whole threads (a reviewer's comment, and the turns seen). Mirrors migrations/0055_thread_review.sql. */
export const threadReviews = pgTable(
  'thread_reviews',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    threadId: text('thread_id').notNull(),
    comment: text('comment').notNull().default(''),
    userId: text('user_id'),
    email: text('email'),
    traceIds: text('trace_ids').array().notNull().default(sql`'{}'`),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [index('thread_reviews_thread').on(t.projectId, t.threadId, t.createdAt)],
);

/** The annotations module's scores of a thread review (one per review and config). Mirrors migrations/0055_thread_review.sql. */
export const threadReviewScores = pgTable(
  'thread_review_scores',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    reviewId: text('review_id').notNull(),
    threadId: text('thread_id').notNull(),
    configId: text('config_id').notNull(),
    numberValue: doublePrecision('number_value'),
    textValue: text('text_value'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [unique().on(t.reviewId, t.configId), index('thread_review_scores_thread').on(t.projectId, t.threadId), index('thread_review_scores_config').on(t.configId, t.createdAt)],
);
