import { jsonParam, type Executor } from '../../db/index.ts';
import { dayOf } from '../../db/day-partitions.ts';
import { sql, type SQL } from 'drizzle-orm';
import { newId } from '../ids.ts';
import { eventDefinition, type EventType } from './catalog.ts';

export * from './catalog.ts';

/**
 * Every statement that writes outbox events also NOTIFYs this channel: PostgreSQL delivers the
 * notification when (and only when) the transaction commits, to every process listening, so
 * the webhook dispatcher wakes as soon as an event can be sent, without polling.
 */
export const EVENTS_CHANNEL = 'spyglass_events';

// Identical notifications of one transaction are delivered once, so one per row costs little.
const NOTIFY = sql.raw(`RETURNING pg_notify('${EVENTS_CHANNEL}', '')`);

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
      organization_id: event.organizationId,
      project_id: event.projectId,
      type: event.type,
      schema_version: def.schemaVersion,
      data: event.data,
    };
  });
  // One parameter for the whole batch: ingestion writes dozens of these per request.
  await tx.execute(sql`
    INSERT INTO events (id, organization_id, project_id, type, schema_version, data, created_at, day)
    SELECT x.id, x.organization_id, x.project_id, x.type, x.schema_version, x.data, ${at}, ${dayOf(at.getTime())}::int
    FROM json_to_recordset(${jsonParam(values)}::json)
      AS x(id text, organization_id text, project_id text, type text, schema_version text, data jsonb)
    ${NOTIFY}`);
  return values.map((v) => v.id);
}

/**
 * For producers that write many rows and their events in one statement (a data-modifying
 * CTE: `WITH up AS (INSERT ... RETURNING ...), ev AS (${eventsInsertSql(...)}) SELECT ...`):
 * the INSERT of one event of `type` per row of `source`, which must select the columns
 * `id` (from `newId('evt')`), `organization_id`, `project_id` and `data` (jsonb).
 */
export function eventsInsertSql(type: EventType, source: SQL, at: Date): SQL {
  const def = eventDefinition(type);
  if (!def) throw new Error(`unknown event type ${type}`);
  return sql`INSERT INTO events (id, organization_id, project_id, type, schema_version, data, created_at, day)
    SELECT e.id, e.organization_id, e.project_id, ${type}, ${def.schemaVersion}, e.data, ${at}, ${dayOf(at.getTime())}::int FROM (${source}) AS e
    ${NOTIFY}`;
}
