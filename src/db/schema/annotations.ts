import { sql } from 'drizzle-orm';
import { boolean, doublePrecision, index, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

// The annotations module's tables: annotations, score configs and the scores annotations hold, and reviews of whole threads with their scores.

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const annotations = pgTable('annotations', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  traceId: text('trace_id').notNull(),
  comment: text('comment').notNull(),
  /** null: no thumb (a review completed without one) */
  isThumbsUp: boolean('is_thumbs_up'),
  email: text('email'),
  userId: text('user_id'),
  anchorKind: text('anchor_kind', { enum: ['span', 'field', 'attribute', 'message'] }),
  anchorId: text('anchor_id'),
  anchorPath: text('anchor_path'),
  createdAt: at('created_at').notNull().defaultNow(),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

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
  (t) => [unique().on(t.reviewId, t.configId), index('thread_review_scores_thread').on(t.projectId, t.threadId), index('thread_review_scores_config').on(t.configId, t.createdAt),
    // 0062: the analytics series read a project's thread scores over a range.
    index('thread_review_scores_project_time').on(t.projectId, t.createdAt),
  ],
);
