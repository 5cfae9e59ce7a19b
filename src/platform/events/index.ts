import type { Executor } from '../../db/index.ts';
import { events } from '../../db/schema/index.ts';
import { newId } from '../ids.ts';
import { eventDefinition, type EventType } from './catalog.ts';

export * from './catalog.ts';

export interface NewEvent {
  organizationId: string;
  /** Null for organization-level events (e.g. an organization-wide API key). */
  projectId: string | null;
  type: EventType;
  data: Record<string, unknown>;
}

/**
 * Writes an event to the outbox. Call it with the transaction that makes the change, so
 * the event exists exactly when the change does.
 */
export async function emitEvent(tx: Executor, event: NewEvent, at: Date): Promise<string> {
  const [id] = await emitEvents(tx, [event], at);
  return id;
}

/** Several events in one statement (ingestion creates many traces per request). */
export async function emitEvents(tx: Executor, batch: NewEvent[], at: Date): Promise<string[]> {
  if (!batch.length) return [];
  const values = batch.map((event) => {
    const def = eventDefinition(event.type);
    if (!def) throw new Error(`unknown event type ${event.type}`);
    return {
      id: newId('evt'),
      organizationId: event.organizationId,
      projectId: event.projectId,
      type: event.type,
      schemaVersion: def.schemaVersion,
      data: event.data,
      createdAt: at,
    };
  });
  await tx.insert(events).values(values);
  return values.map((v) => v.id);
}
