import { AppError, badRequest, notFound } from '../../platform/errors.ts';
import { emitEvent } from '../../platform/events/index.ts';
import type { AnnotationView, ThreadReviewView } from '../annotations/index.ts';
import { CLAIM_MS, reviewerOf, type ReviewDeps, type ReviewScope } from './context.ts';
import { presentItem } from './presenters.ts';
import { progressOf, requireQueue } from './queues.ts';
import type { CompleteItemBody, ItemView, QueueProgress } from './schemas.ts';
import * as store from './store.ts';
import type { ItemRow, QueueRow } from './store.ts';

/**
 * The reviewer's flow: claim the next item, then complete it (an annotation with the
 * queue's scores), skip it, or release it. Claims live in the database (claimed_by,
 * claim_expires_at): they survive a restart and lapse after CLAIM_MS by the app's clock.
 * Nothing here waits or retries: a claim is one UPDATE that picks a free row or none.
 */
export async function claimNext(deps: ReviewDeps, scope: ReviewScope, queueId: string): Promise<{ data: ItemView | null; claimMs: number; progress: QueueProgress }> {
  const queue = await requireQueue(deps, scope.projectId, queueId);
  checkMember(queue, scope);
  const reviewer = reviewerOf(scope);
  const now = deps.clock.now();
  // The item already held comes back (a reload, a second tab); its claim is renewed.
  const held = await store.heldBy(deps.db.orm, queue.id, reviewer, now);
  const until = new Date(now.getTime() + CLAIM_MS);
  const item = held ? await store.updateItem(deps.db.orm, held.id, { claimExpiresAt: until }) : await store.claimNext(deps.db.orm, queue.id, reviewer, now, until);
  const progress = (await progressOf(deps, scope.organizationId, [queue])).get(queue.id)!;
  return { data: item ? presentItem(item, now) : null, claimMs: CLAIM_MS, progress };
}

export async function getItem(
  deps: ReviewDeps,
  scope: ReviewScope,
  queueId: string,
  itemId: string,
): Promise<{ data: ItemView; annotation: AnnotationView | null; threadReview: ThreadReviewView | null }> {
  await requireQueue(deps, scope.projectId, queueId);
  const item = await store.findItem(deps.db.orm, queueId, itemId);
  if (!item) throw itemNotFound(itemId);
  const thread = item.threadId !== '';
  const annotation = item.annotationId && !thread ? await deps.annotations.get(scope, item.annotationId).catch(() => null) : null;
  const threadReview = item.annotationId && thread ? await deps.threadReviews.get(scope.projectId, item.annotationId) : null;
  return { data: presentItem(item, deps.clock.now()), annotation, threadReview };
}

export async function listItems(
  deps: ReviewDeps,
  scope: ReviewScope,
  queueId: string,
  q: { status?: ItemRow['status']; doneBy?: 'me'; page: number; pageSize: number },
): Promise<{ data: ItemView[]; total: number }> {
  await requireQueue(deps, scope.projectId, queueId);
  const { items, total } = await store.listItems(deps.db.orm, queueId, {
    status: q.status,
    doneBy: q.doneBy === 'me' ? reviewerOf(scope) : undefined,
    limit: q.pageSize,
    offset: (q.page - 1) * q.pageSize,
  });
  const now = deps.clock.now();
  return { data: items.map((i) => presentItem(i, now)), total };
}

/**
 * Completes an item with the queue's scores: its annotation (scores checked against their
 * configs) and the item's new status are written in one transaction, with
 * queue_item.completed. The caller must hold the item, or it must be free (nobody holds it).
 * A thread item's scores are a review of the thread (stored against it, with the turns it
 * had when scored); a thumb is a trace's, not a thread's.
 */
export async function completeItem(
  deps: ReviewDeps,
  scope: ReviewScope,
  queueId: string,
  itemId: string,
  body: CompleteItemBody,
): Promise<{ data: ItemView; annotation: AnnotationView | null; threadReview: ThreadReviewView | null }> {
  const queue = await requireQueue(deps, scope.projectId, queueId);
  checkMember(queue, scope);
  body.scores.forEach((s, i) => {
    if (!queue.scoreConfigIds.includes(s.configId)) {
      throw badRequest('unknown_score_config', `body.scores.${i}.configId: ${s.configId} is not a score config of queue "${queue.name}"`, `body.scores.${i}.configId`);
    }
  });
  const missing = queue.scoreConfigIds.find((id) => !body.scores.some((s) => s.configId === id));
  if (missing) {
    const [config] = await deps.scoreConfigs.require(deps.db.orm, scope.projectId, [missing], 'body.scores');
    throw badRequest('score_required', `body.scores: queue "${queue.name}" asks for a score of "${config.name}" (${missing})`, 'body.scores');
  }
  const reviewer = reviewerOf(scope);
  const now = deps.clock.now();
  const comment = await deps.annotations.redactedComment(scope.projectId, body.comment);
  // Read outside the transaction (PGlite has one connection): the turns the reviewer scored.
  const peek = await store.findItem(deps.db.orm, queue.id, itemId);
  if (peek && peek.threadId !== '' && body.isThumbsUp !== null) throw badRequest('validation_error', 'body.isThumbsUp: a thread is scored with the queue\'s score configs; a thumb belongs to a trace', 'body.isThumbsUp');
  const traceIds = peek && peek.threadId !== '' ? await deps.threadTraceIds(scope.projectId, peek.threadId) : [];
  return deps.db.orm.transaction(async (tx) => {
    const item = await store.findItem(tx, queue.id, itemId, true);
    if (!item) throw itemNotFound(itemId);
    checkOpen(item, reviewer, now);
    if (item.threadId !== '') {
      const threadReview = await deps.threadReviews.createIn(tx, scope, item.threadId, { comment, scores: body.scores, traceIds }, now);
      const done = await store.updateItem(tx, item.id, { status: 'completed', doneBy: reviewer, doneAt: now, annotationId: threadReview.id, claimedBy: null, claimExpiresAt: null });
      const data = presentItem(done, now);
      await emitEvent(
        tx,
        { organizationId: scope.organizationId, projectId: scope.projectId, type: 'queue_item.completed', data: { queue: { id: queue.id, name: queue.name }, item: data, annotationId: threadReview.id } },
        now,
      );
      return { data, annotation: null, threadReview };
    }
    const annotation = await deps.annotations.createIn(
      tx,
      scope,
      item.traceId,
      {
        comment,
        isThumbsUp: body.isThumbsUp,
        scores: body.scores,
        ...(item.spanId ? { anchorKind: 'span' as const, anchorId: item.spanId } : {}),
      },
      now,
    );
    const done = await store.updateItem(tx, item.id, { status: 'completed', doneBy: reviewer, doneAt: now, annotationId: annotation.id, claimedBy: null, claimExpiresAt: null });
    const data = presentItem(done, now);
    await emitEvent(
      tx,
      { organizationId: scope.organizationId, projectId: scope.projectId, type: 'queue_item.completed', data: { queue: { id: queue.id, name: queue.name }, item: data, annotationId: annotation.id } },
      now,
    );
    return { data, annotation, threadReview: null };
  });
}

/** Skipped: counted as done by the caller, no annotation. */
export async function skipItem(deps: ReviewDeps, scope: ReviewScope, queueId: string, itemId: string): Promise<{ data: ItemView }> {
  return settle(deps, scope, queueId, itemId, (reviewer, now) => ({ status: 'skipped', doneBy: reviewer, doneAt: now, claimedBy: null, claimExpiresAt: null }));
}

/** Released: back to pending, for anyone to claim. */
export async function releaseItem(deps: ReviewDeps, scope: ReviewScope, queueId: string, itemId: string): Promise<{ data: ItemView }> {
  return settle(deps, scope, queueId, itemId, () => ({ claimedBy: null, claimExpiresAt: null }));
}

async function settle(deps: ReviewDeps, scope: ReviewScope, queueId: string, itemId: string, patch: (reviewer: string, now: Date) => Partial<ItemRow>): Promise<{ data: ItemView }> {
  const queue = await requireQueue(deps, scope.projectId, queueId);
  checkMember(queue, scope);
  const reviewer = reviewerOf(scope);
  const now = deps.clock.now();
  return deps.db.orm.transaction(async (tx) => {
    const item = await store.findItem(tx, queue.id, itemId, true);
    if (!item) throw itemNotFound(itemId);
    checkOpen(item, reviewer, now);
    return { data: presentItem(await store.updateItem(tx, item.id, patch(reviewer, now)), now) };
  });
}

/** Pending, and held by the caller or by nobody (never claimed, released, or expired). */
function checkOpen(item: ItemRow, reviewer: string, now: Date): void {
  if (item.status !== 'pending') throw new AppError(409, 'item_done', `item ${item.id} is already ${item.status}`);
  const heldByOther = item.claimedBy !== null && item.claimedBy !== reviewer && item.claimExpiresAt !== null && item.claimExpiresAt > now;
  if (heldByOther) throw new AppError(409, 'item_claimed', `item ${item.id} is claimed by another reviewer until ${item.claimExpiresAt!.toISOString()}`);
}

/** A queue with members assigned hands its items to them only. */
function checkMember(queue: QueueRow, scope: ReviewScope): void {
  if (queue.memberUserIds.length === 0) return;
  if (scope.userId && queue.memberUserIds.includes(scope.userId)) return;
  throw new AppError(403, 'not_a_member', `queue "${queue.name}" is reviewed by its members only; ask to be added to it`);
}

const itemNotFound = (id: string) => notFound('item_not_found', `no item ${id} in this queue`);
