import type { ItemView } from './schemas.ts';
import type { ItemRow } from './store.ts';

/** An item as answered: an expired claim reads as no claim. */
export function presentItem(r: ItemRow, now: Date): ItemView {
  const held = r.status === 'pending' && r.claimedBy !== null && r.claimExpiresAt !== null && r.claimExpiresAt > now;
  return {
    id: r.id,
    queueId: r.queueId,
    traceId: r.threadId === '' ? r.traceId : null,
    spanId: r.spanId === '' ? null : r.spanId,
    threadId: r.threadId === '' ? null : r.threadId,
    source: r.source,
    status: r.status,
    claimedBy: held ? r.claimedBy : null,
    claimExpiresAt: held ? r.claimExpiresAt!.toISOString() : null,
    doneBy: r.doneBy,
    doneAt: r.doneAt?.toISOString() ?? null,
    annotationId: r.annotationId,
    createdAt: r.createdAt.toISOString(),
  };
}
