import type { WebhookEventPayload } from '../../db/schema/index.ts';
import { badRequest, conflict } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { WebhooksContext } from './context.ts';
import { findEndpoint } from './manage-endpoints.ts';
import { presentAttempt, type AttemptView } from './presenters.ts';
import * as store from './store.ts';

/** Queues a `webhook.test` event for this endpoint alone, whatever it subscribes to. */
export async function sendTest(ctx: WebhooksContext, projectId: string, id: string): Promise<{ dispatch_id: string; event: WebhookEventPayload & { type: 'webhook.test' } }> {
  const row = await findEndpoint(ctx, projectId, id);
  if (!row.enabled) {
    throw conflict('endpoint_disabled', `endpoint ${id} is disabled${row.disabledReason ? ` (${row.disabledReason})` : ''}; PATCH {"enabled": true} first`);
  }
  const now = ctx.clock.now();
  const event = {
    id: newId('evt'),
    type: 'webhook.test' as const,
    schema_version: '1',
    timestamp: now.toISOString(),
    data: { endpoint_id: id, project_id: projectId, message: 'A test event sent from Spyglass: this endpoint receives webhooks.' },
  };
  const dispatchId = newId('msg');
  await store.insertDispatch(ctx.db.orm, {
    id: dispatchId,
    endpointId: id,
    status: 'open',
    events: [event],
    eventCount: 1,
    payload: JSON.stringify({ batch: [event] }),
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  });
  ctx.dispatcher.wake();
  return { dispatch_id: dispatchId, event };
}

/** Attempts of one endpoint, newest first, keyset-paged by an opaque cursor. */
export async function listDeliveries(ctx: WebhooksContext, projectId: string, id: string, query: { cursor?: string; limit: number }): Promise<{ data: AttemptView[]; next_cursor: string | null }> {
  await findEndpoint(ctx, projectId, id);
  const before = query.cursor !== undefined ? decodeCursor(query.cursor) : null;
  const page = await store.attemptsPage(ctx.db.orm, id, before, query.limit + 1);
  const more = page.length > query.limit;
  const data = page.slice(0, query.limit);
  return { data: data.map(presentAttempt), next_cursor: more ? encodeCursor(data[data.length - 1].seq) : null };
}

const CURSOR_PATTERN = /^a([1-9]\d{0,17})$/;

function encodeCursor(seq: number): string {
  return Buffer.from(`a${seq}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): number {
  const match = CURSOR_PATTERN.exec(/^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '');
  if (!match) throw badRequest('invalid_cursor', 'cursor: not a next_cursor this endpoint returned', 'cursor');
  return Number(match[1]);
}
