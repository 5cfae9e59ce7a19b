import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { rows, type Executor } from '../../db/index.ts';
import { scoreConfigs, threadReviewScores, threadReviews } from '../../db/schema/index.ts';

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

/** The latest score of one config on each thread people scored with it (judge alignment). */
export async function latestThreadScoresOfConfig(db: Executor, projectId: string, configId: string) {
  return rows<{ threadId: string; numberValue: number | null; textValue: string | null }>(
    db,
    sql`SELECT DISTINCT ON (thread_id) thread_id AS "threadId", number_value AS "numberValue", text_value AS "textValue"
        FROM thread_review_scores WHERE project_id = ${projectId} AND config_id = ${configId}
        ORDER BY thread_id, created_at DESC, id DESC`,
  );
}
