import { and, asc, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { rows, type Executor } from '../../db/index.ts';
import { bucketSql, type BucketSpec } from '../../platform/time-buckets.ts';
import type { ThreadIdsRelation, ThreadsPickedRelation, ThreadValuesRelation } from '../traces/index.ts';
import { scoreConfigs, threadReviewScores, threadReviews } from '../../db/schema/annotations.ts';

export type ThreadReviewRow = typeof threadReviews.$inferSelect;

export async function insertThreadReview(db: Executor, row: typeof threadReviews.$inferInsert): Promise<ThreadReviewRow> {
  const [created] = await db.insert(threadReviews).values(row).returning();
  return created;
}

export async function insertThreadScores(db: Executor, values: (typeof threadReviewScores.$inferInsert)[]): Promise<void> {
  if (values.length > 0) await db.insert(threadReviewScores).values(values);
}

export async function findThreadReview(db: Executor, projectId: string, id: string): Promise<ThreadReviewRow | null> {
  const [row] = await db
    .select()
    .from(threadReviews)
    .where(and(eq(threadReviews.projectId, projectId), eq(threadReviews.id, id)));
  return row ?? null;
}

/** A thread's reviews, oldest first. */
export async function listThreadReviews(db: Executor, projectId: string, threadId: string): Promise<ThreadReviewRow[]> {
  return db
    .select()
    .from(threadReviews)
    .where(and(eq(threadReviews.projectId, projectId), eq(threadReviews.threadId, threadId)))
    .orderBy(asc(threadReviews.createdAt), asc(threadReviews.id));
}

/** The scores of these reviews, with their config's name and kind. */
export async function scoresOfThreadReviews(db: Executor, projectId: string, reviewIds: string[]) {
  if (reviewIds.length === 0) return [];
  return db
    .select({ score: threadReviewScores, config: scoreConfigs })
    .from(threadReviewScores)
    .innerJoin(scoreConfigs, eq(scoreConfigs.id, threadReviewScores.configId))
    .where(and(eq(threadReviewScores.projectId, projectId), inArray(threadReviewScores.reviewId, reviewIds)))
    .orderBy(asc(scoreConfigs.name));
}

/** Every score of these threads with its config's name and kind, oldest first. */
export async function scoresOfThreads(db: Executor, projectId: string, threadIds: readonly string[]) {
  if (threadIds.length === 0) return [];
  return rows<{ key: string; config_id: string; name: string; kind: 'numeric' | 'boolean' | 'categorical'; number_value: number | null; text_value: string | null }>(
    db,
    sql`SELECT s.thread_id AS key, s.config_id, c.name, c.kind, s.number_value, s.text_value
        FROM thread_review_scores s JOIN score_configs c ON c.id = s.config_id
        WHERE s.project_id = ${projectId} AND s.thread_id = ANY(ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(threadIds)}::jsonb)))
        ORDER BY s.created_at, s.id`,
  );
}

/** The threads with a score of the config within min..max, or equal to value (its text): a typed relation the threads list keeps. */
export function scoredThreadsRelation(projectId: string, f: { configId: string; min?: number; max?: number; value?: string }): ThreadsPickedRelation {
  const s = threadReviewScores;
  return new QueryBuilder()
    .selectDistinct({ threadId: s.threadId })
    .from(s)
    .where(
      and(
        eq(s.projectId, projectId),
        eq(s.configId, f.configId),
        f.min === undefined ? undefined : gte(s.numberValue, f.min),
        f.max === undefined ? undefined : lte(s.numberValue, f.max),
        f.value === undefined ? undefined : eq(s.textValue, f.value),
      ),
    )
    .as('reviewed_threads');
}

/**
 * The config's mean per scored thread (boolean: the share true), as a typed relation (threadId,
 * value) the threads list sorts by. Its columns have names of their own, apart from the list's.
 */
export function threadScoreMeansRelation(projectId: string, configId: string): ThreadValuesRelation {
  const s = threadReviewScores;
  return new QueryBuilder()
    .select({ threadId: sql<string>`${s.threadId}`.as('sort_thread_id'), value: sql<number>`avg(${s.numberValue})::float8`.as('sort_value') })
    .from(s)
    .where(and(eq(s.projectId, projectId), eq(s.configId, configId)))
    .groupBy(s.threadId)
    .as('sort_values');
}

export interface ThreadScoreBucketRow {
  config_id: string;
  name: string;
  kind: 'numeric' | 'boolean' | 'categorical';
  b: number;
  category: string | null;
  n: number;
  total: number | null;
}

/**
 * People's thread scores per config and bucket of when they were given (categories counted
 * apart), only of the threads `threads` holds when given (a trace search's, the traces module's relation).
 */
export async function threadScoreBuckets(db: Executor, projectId: string, q: { start: number; end: number; buckets: BucketSpec; threads: ThreadIdsRelation | null }): Promise<ThreadScoreBucketRow[]> {
  const at = sql`(extract(epoch FROM s.created_at) * 1000)::bigint`;
  return rows<ThreadScoreBucketRow>(
    db,
    sql`SELECT s.config_id, c.name, c.kind, ${bucketSql(q.buckets, at)} AS b, CASE WHEN c.kind = 'categorical' THEN s.text_value END AS category,
          count(*)::int AS n, sum(s.number_value)::float8 AS total
        FROM thread_review_scores s JOIN score_configs c ON c.id = s.config_id
        WHERE s.project_id = ${projectId} AND s.created_at >= to_timestamp(${q.start}::float8 / 1000) AND s.created_at <= to_timestamp(${q.end}::float8 / 1000)
          ${q.threads === null ? sql`` : sql`AND s.thread_id IN (SELECT ${q.threads.threadId} FROM ${q.threads})`}
        GROUP BY 1, 2, 3, 4, 5`,
  );
}

/** The latest score of one config on each thread people scored with it (judge alignment). */
export async function latestThreadScoresOfConfig(db: Executor, projectId: string, configId: string) {
  return rows<{ threadId: string; numberValue: number | null; textValue: string | null }>(
    db,
    sql`SELECT DISTINCT ON (thread_id) thread_id AS "threadId", number_value AS "numberValue", text_value AS "textValue"
        FROM thread_review_scores WHERE project_id = ${projectId} AND config_id = ${configId}
        ORDER BY thread_id, created_at DESC, id DESC`,
  );
}
