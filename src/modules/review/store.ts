import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { rows, type Executor, textArray } from '../../db/index.ts';
import { reviewQueueItems, reviewQueues } from '../../db/schema/review.ts';

export type QueueRow = typeof reviewQueues.$inferSelect;
export type ItemRow = typeof reviewQueueItems.$inferSelect;

export async function insertQueue(db: Executor, row: typeof reviewQueues.$inferInsert): Promise<QueueRow | null> {
  const [created] = await db.insert(reviewQueues).values(row).onConflictDoNothing().returning();
  return created ?? null;
}

export async function listQueues(db: Executor, projectId: string, memberUserId?: string): Promise<QueueRow[]> {
  const conditions = [eq(reviewQueues.projectId, projectId)];
  if (memberUserId !== undefined) conditions.push(sql`${memberUserId} = ANY(${reviewQueues.memberUserIds})`);
  return db
    .select()
    .from(reviewQueues)
    .where(and(...conditions))
    .orderBy(asc(reviewQueues.name));
}

export async function findQueue(db: Executor, projectId: string, id: string): Promise<QueueRow | null> {
  const [row] = await db
    .select()
    .from(reviewQueues)
    .where(and(eq(reviewQueues.projectId, projectId), eq(reviewQueues.id, id)));
  return row ?? null;
}

export async function updateQueue(db: Executor, projectId: string, id: string, patch: Partial<QueueRow>): Promise<QueueRow | null> {
  const [row] = await db
    .update(reviewQueues)
    .set(patch)
    .where(and(eq(reviewQueues.projectId, projectId), eq(reviewQueues.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteQueue(db: Executor, projectId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(reviewQueues)
    .where(and(eq(reviewQueues.projectId, projectId), eq(reviewQueues.id, id)))
    .returning({ id: reviewQueues.id });
  return deleted.length > 0;
}

/** Adds items (each trace or span once per queue): how many were new. */
export async function insertItems(db: Executor, values: (typeof reviewQueueItems.$inferInsert)[]): Promise<number> {
  let added = 0;
  // Bounded statements: 500 rows of 8 parameters each.
  for (let i = 0; i < values.length; i += 500) {
    const inserted = await db
      .insert(reviewQueueItems)
      .values(values.slice(i, i + 500))
      .onConflictDoNothing()
      .returning({ id: reviewQueueItems.id });
    added += inserted.length;
  }
  return added;
}

export async function findItem(db: Executor, queueId: string, id: string, lock = false): Promise<ItemRow | null> {
  const query = db
    .select()
    .from(reviewQueueItems)
    .where(and(eq(reviewQueueItems.queueId, queueId), eq(reviewQueueItems.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function listItems(
  db: Executor,
  queueId: string,
  filter: { status?: ItemRow['status']; doneBy?: string; limit: number; offset: number },
): Promise<{ items: ItemRow[]; total: number }> {
  const conditions = [eq(reviewQueueItems.queueId, queueId)];
  if (filter.status) conditions.push(eq(reviewQueueItems.status, filter.status));
  if (filter.doneBy) conditions.push(eq(reviewQueueItems.doneBy, filter.doneBy));
  const where = and(...conditions);
  const order = filter.doneBy ? [desc(reviewQueueItems.doneAt), desc(reviewQueueItems.seq)] : [asc(reviewQueueItems.seq)];
  const items = await db
    .select()
    .from(reviewQueueItems)
    .where(where)
    .orderBy(...order)
    .limit(filter.limit)
    .offset(filter.offset);
  const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(reviewQueueItems).where(where);
  return { items, total: Number(n) };
}

/** The pending item `reviewer` holds in the queue now (a claim not yet expired), if any. */
export async function heldBy(db: Executor, queueId: string, reviewer: string, now: Date): Promise<ItemRow | null> {
  const [row] = await db
    .select()
    .from(reviewQueueItems)
    .where(
      and(
        eq(reviewQueueItems.queueId, queueId),
        eq(reviewQueueItems.status, 'pending'),
        eq(reviewQueueItems.claimedBy, reviewer),
        sql`${reviewQueueItems.claimExpiresAt} > ${now}`,
      ),
    )
    .orderBy(asc(reviewQueueItems.seq))
    .limit(1);
  return row ?? null;
}

/**
 * Claims the first pending item nobody holds (never claimed, released, or its claim expired)
 * in one statement: the row is locked as it is picked and rows locked by a concurrent claim
 * are skipped, so two reviewers never get the same item. Null: nothing left to claim.
 */
export async function claimNext(db: Executor, queueId: string, reviewer: string, now: Date, until: Date): Promise<ItemRow | null> {
  const [row] = await rows<{ id: string }>(
    db,
    sql`UPDATE review_queue_items SET claimed_by = ${reviewer}, claim_expires_at = ${until}
        WHERE id = (
          SELECT id FROM review_queue_items
          WHERE queue_id = ${queueId} AND status = 'pending' AND (claimed_by IS NULL OR claim_expires_at <= ${now})
          ORDER BY seq LIMIT 1
          FOR UPDATE SKIP LOCKED
        )
        AND status = 'pending' AND (claimed_by IS NULL OR claim_expires_at <= ${now})
        RETURNING id`,
  );
  return row ? findItem(db, queueId, row.id) : null;
}

export async function updateItem(db: Executor, id: string, patch: Partial<ItemRow>): Promise<ItemRow> {
  const [row] = await db.update(reviewQueueItems).set(patch).where(eq(reviewQueueItems.id, id)).returning();
  return row;
}

/** Counts per status, and per reviewer (done, and held now). */
export async function progressCounts(db: Executor, queueIds: string[], now: Date) {
  if (queueIds.length === 0) return { totals: [], reviewers: [] };
  const ids = sql`ANY(${textArray(queueIds)})`;
  const totals = await rows<{ queue_id: string; total: number; pending: number; claimed: number; completed: number; skipped: number }>(
    db,
    sql`SELECT queue_id, count(*)::int AS total,
               count(*) FILTER (WHERE status = 'pending')::int AS pending,
               count(*) FILTER (WHERE status = 'pending' AND claimed_by IS NOT NULL AND claim_expires_at > ${now})::int AS claimed,
               count(*) FILTER (WHERE status = 'completed')::int AS completed,
               count(*) FILTER (WHERE status = 'skipped')::int AS skipped
        FROM review_queue_items WHERE queue_id = ${ids} GROUP BY queue_id`,
  );
  const reviewers = await rows<{ queue_id: string; reviewer: string; completed: number; skipped: number; claimed: number }>(
    db,
    sql`SELECT queue_id, reviewer, sum(completed)::int AS completed, sum(skipped)::int AS skipped, sum(claimed)::int AS claimed FROM (
          SELECT queue_id, done_by AS reviewer, (status = 'completed')::int AS completed, (status = 'skipped')::int AS skipped, 0 AS claimed
          FROM review_queue_items WHERE queue_id = ${ids} AND done_by IS NOT NULL
          UNION ALL
          SELECT queue_id, claimed_by, 0, 0, 1 FROM review_queue_items
          WHERE queue_id = ${ids} AND status = 'pending' AND claimed_by IS NOT NULL AND claim_expires_at > ${now}
        ) x GROUP BY queue_id, reviewer ORDER BY reviewer`,
  );
  return { totals, reviewers };
}
