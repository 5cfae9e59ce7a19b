import type { Tx } from '../../db/index.ts';
import { emitEvent } from '../../platform/events/index.ts';
import type { ApiKeyView } from './presenters.ts';

/**
 * api_key.created / api_key.revoked, in the caller's transaction. The data is the key as
 * GET /api/api-keys/{id} shows it (never the token). Project keys' events belong to their
 * project; organization keys' events to the organization (projectId null).
 */
export function emitKeyEvent(tx: Tx, type: 'api_key.created' | 'api_key.revoked', key: ApiKeyView, now: Date) {
  return emitEvent(tx, { organizationId: key.organizationId, projectId: key.projectId, type, data: { ...key } }, now);
}
