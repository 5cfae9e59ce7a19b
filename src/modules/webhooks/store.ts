import { and, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { relationExists, rows, type Executor } from '../../db/index.ts';
import { webhookDeliveryAttempts, webhookDispatches, webhookEndpoints, type WebhookEventPayload } from '../../db/schema/webhooks.ts';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DispatchRow = typeof webhookDispatches.$inferSelect;
export type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect;

const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

// Endpoints

export async function insertEndpoint(db: Executor, row: typeof webhookEndpoints.$inferInsert): Promise<EndpointRow> {
  const [created] = await db.insert(webhookEndpoints).values(row).returning();
  return created;
}

export async function listEndpoints(db: Executor, projectId: string): Promise<EndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.projectId, projectId))
    .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
}

export async function countEndpoints(db: Executor, projectId: string): Promise<number> {
  const [row] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM webhook_endpoints WHERE project_id = ${projectId}`);
  return Number(row.n);
}

export async function findEndpoint(db: Executor, projectId: string, id: string, forUpdate = false): Promise<EndpointRow | null> {
  const query = db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.projectId, projectId)));
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

export async function findEndpointById(db: Executor, id: string, forUpdate = false): Promise<EndpointRow | null> {
  const query = db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

export async function endpointsByIds(db: Executor, ids: string[]): Promise<EndpointRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(webhookEndpoints).where(inArray(webhookEndpoints.id, ids));
}

export async function updateEndpoint(db: Executor, id: string, patch: Partial<EndpointRow>): Promise<EndpointRow> {
  const [row] = await db.update(webhookEndpoints).set(patch).where(eq(webhookEndpoints.id, id)).returning();
  return row;
}

/** Endpoints whose secret or previous secret is sealed with a key other than `keyId`, locked for update. */
export async function endpointsSealedWithOtherKeys(tx: Executor, keyId: string): Promise<EndpointRow[]> {
  return tx
    .select()
    .from(webhookEndpoints)
    .where(or(sql`${webhookEndpoints.secretKeyId} <> ${keyId}`, sql`${webhookEndpoints.previousSecretKeyId} <> ${keyId}`))
    .orderBy(webhookEndpoints.id)
    .for('update');
}

export async function deleteEndpoint(db: Executor, projectId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.projectId, projectId)))
    .returning({ id: webhookEndpoints.id });
  return deleted.length > 0;
}

/** Enabled endpoints that may receive events of these projects, or these organizations' organization-level events. */
export async function candidateEndpoints(db: Executor, projectIds: string[], organizationIds: string[]): Promise<EndpointRow[]> {
  const reach = [];
  if (projectIds.length) reach.push(inArray(webhookEndpoints.projectId, projectIds));
  if (organizationIds.length) {
    reach.push(and(eq(webhookEndpoints.receivesOrganizationEvents, true), inArray(webhookEndpoints.organizationId, organizationIds)));
  }
  if (reach.length === 0) return [];
  return db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.enabled, true), or(...reach)));
}

// The outbox cursor

export interface OutboxCursor {
  txid: string;
  seq: number;
}

/** Locks the cursor for this transaction; null when another process is fanning out right now. */
export async function lockCursor(tx: Executor): Promise<OutboxCursor | null> {
  const [row] = await rows<{ txid: string; seq: string | number }>(
    tx,
    sql`SELECT last_txid::text AS txid, last_seq AS seq FROM webhook_outbox_cursor WHERE id = 1 FOR UPDATE SKIP LOCKED`,
  );
  return row ? { txid: row.txid, seq: Number(row.seq) } : null;
}

export async function advanceCursor(tx: Executor, to: OutboxCursor, now: Date): Promise<void> {
  await tx.execute(
    sql`UPDATE webhook_outbox_cursor SET last_txid = ${to.txid}::xid8, last_seq = ${to.seq}, updated_at = ${ts(now)} WHERE id = 1`,
  );
}

export interface OutboxEvent {
  seq: number;
  txid: string;
  id: string;
  organizationId: string;
  projectId: string | null;
  type: string;
  schemaVersion: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Events after the cursor whose writing transactions have all ended: no event can still
 * appear before them, so the cursor may move past them.
 */
export async function settledEventsAfter(tx: Executor, cursor: OutboxCursor, limit: number): Promise<OutboxEvent[]> {
  const found = await rows<{
    seq: string | number;
    txid: string;
    id: string;
    organization_id: string;
    project_id: string | null;
    type: string;
    schema_version: string;
    data: Record<string, unknown>;
    created_at: Date | string;
  }>(
    tx,
    sql`SELECT seq, txid::text AS txid, id, organization_id, project_id, type, schema_version, data, created_at
        FROM events
        WHERE (txid, seq) > (${cursor.txid}::xid8, ${cursor.seq}::bigint)
          AND txid < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY txid, seq
        LIMIT ${limit}`,
  );
  return found.map((r) => ({
    seq: Number(r.seq),
    txid: r.txid,
    id: r.id,
    organizationId: r.organization_id,
    projectId: r.project_id,
    type: r.type,
    schemaVersion: r.schema_version,
    data: r.data,
    createdAt: new Date(r.created_at),
  }));
}

/** Whether any outbox event lies after the cursor (settled or not). */
export async function hasOutboxBacklog(db: Executor): Promise<boolean> {
  // Whether the last event (one step back along events_txid_seq) lies after the cursor. The
  // EXISTS over events joined to the cursor that this replaces was planned as a scan of every
  // event kept (24 h of them; PGlite has no autovacuum to give the planner statistics): at
  // 20,000 events 280 ms against 0.15 ms (PGlite, busy machine), once per commit that wrote events.
  const [row] = await rows<{ found: boolean }>(
    db,
    sql`SELECT COALESCE((
          SELECT (last.txid, last.seq) > (c.last_txid, c.last_seq)
          FROM (SELECT txid, seq FROM events ORDER BY txid DESC, seq DESC LIMIT 1) last, webhook_outbox_cursor c
          WHERE c.id = 1), false) AS found`,
  );
  return Boolean(row.found);
}

/** Whether any endpoint is enabled: without one, no event written needs fanning out now. */
export async function anyEnabledEndpoint(db: Executor): Promise<boolean> {
  const [row] = await rows<{ found: boolean }>(db, sql`SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled) AS found`);
  return Boolean(row.found);
}

/** Events after the cursor: written, not yet fanned out to batches. */
export async function outboxDepth(db: Executor): Promise<number> {
  const [row] = await rows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM events e, webhook_outbox_cursor c WHERE c.id = 1 AND (e.txid, e.seq) > (c.last_txid, c.last_seq)`,
  );
  return Number(row?.n ?? 0);
}

// Dispatches (batches)

/** Batches not settled yet: open (taking events), sending (claimed) or retrying. */
export async function pendingDispatches(db: Executor): Promise<number> {
  const [row] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM webhook_dispatches WHERE status IN ('open', 'sending', 'retrying')`);
  return Number(row?.n ?? 0);
}

/**
 * The endpoint's batch still taking events, locked; null when there is none. A batch whose
 * payload is fixed (a test event) takes no more.
 */
export async function lockOpenDispatch(tx: Executor, endpointId: string): Promise<DispatchRow | null> {
  const [row] = await tx
    .select()
    .from(webhookDispatches)
    .where(and(eq(webhookDispatches.endpointId, endpointId), eq(webhookDispatches.status, 'open'), isNull(webhookDispatches.payload)))
    .orderBy(desc(webhookDispatches.createdAt))
    .limit(1)
    .for('update');
  return row ?? null;
}

export async function insertDispatch(tx: Executor, row: typeof webhookDispatches.$inferInsert): Promise<void> {
  await tx.insert(webhookDispatches).values(row);
}

export async function appendToDispatch(
  tx: Executor,
  id: string,
  events: WebhookEventPayload[],
  dueAt: Date | null,
  now: Date,
): Promise<void> {
  await tx.execute(sql`
    UPDATE webhook_dispatches
    SET events = events || ${JSON.stringify(events)}::jsonb,
        event_count = event_count + ${events.length},
        next_attempt_at = ${dueAt ? sql`LEAST(next_attempt_at, ${ts(dueAt)})` : sql`next_attempt_at`},
        updated_at = ${ts(now)}
    WHERE id = ${id}`);
}

export interface ClaimedDispatch {
  id: string;
  endpointId: string;
  attempt: number;
  eventCount: number;
  payload: string | null;
  events: WebhookEventPayload[];
}

/**
 * Claims due batches of enabled endpoints for this process until `leaseUntil`: open and
 * retrying batches whose time has come, and batches whose previous claimer died (lease
 * over). SKIP LOCKED lets several processes claim at once without waiting on each other
 * or claiming the same batch.
 */
export async function claimDue(db: Executor, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDispatch[]> {
  if (limit <= 0) return [];
  const claimed = await rows<{
    id: string;
    endpoint_id: string;
    attempts: number;
    event_count: number;
    payload: string | null;
    events: WebhookEventPayload[];
  }>(
    db,
    sql`WITH due AS (
          SELECT d.id FROM webhook_dispatches d
          JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE e.enabled
            AND ((d.status IN ('open', 'retrying') AND d.next_attempt_at <= ${ts(now)})
              OR (d.status = 'sending' AND d.claimed_until <= ${ts(now)}))
          ORDER BY d.next_attempt_at
          LIMIT ${limit}
          FOR UPDATE OF d SKIP LOCKED
        )
        UPDATE webhook_dispatches d
        SET status = 'sending', attempts = d.attempts + 1, claimed_until = ${ts(leaseUntil)}, updated_at = ${ts(now)}
        FROM due WHERE d.id = due.id
        RETURNING d.id, d.endpoint_id, d.attempts, d.event_count, d.payload, d.events`,
  );
  return claimed.map((r) => ({
    id: r.id,
    endpointId: r.endpoint_id,
    attempt: Number(r.attempts),
    eventCount: Number(r.event_count),
    payload: r.payload,
    events: r.events,
  }));
}

/**
 * Makes batches claimed for sending claimable again at once, instead of when their lease
 * ends. Only for a database that no other process can use (PGlite): the claimer is gone.
 */
export async function releaseClaims(db: Executor, now: Date): Promise<void> {
  await db.execute(sql`UPDATE webhook_dispatches SET claimed_until = ${ts(now)} WHERE status = 'sending' AND claimed_until > ${ts(now)}`);
}

export async function fixPayload(db: Executor, id: string, payload: string): Promise<string> {
  // A batch whose earlier claimer died after fixing the payload keeps that payload.
  const [row] = await rows<{ payload: string }>(
    db,
    sql`UPDATE webhook_dispatches SET payload = COALESCE(payload, ${payload}) WHERE id = ${id} RETURNING payload`,
  );
  return row?.payload ?? payload;
}

/** Records the outcome of this process's attempt, unless the batch was claimed again meanwhile. */
export async function settleDispatch(
  tx: Executor,
  id: string,
  attempt: number,
  patch: { status: 'delivered' | 'retrying' | 'failed'; nextAttemptAt: Date | null },
  now: Date,
): Promise<void> {
  await tx
    .update(webhookDispatches)
    .set({
      status: patch.status,
      ...(patch.nextAttemptAt ? { nextAttemptAt: patch.nextAttemptAt } : {}),
      claimedUntil: null,
      updatedAt: now,
    })
    .where(and(eq(webhookDispatches.id, id), eq(webhookDispatches.status, 'sending'), eq(webhookDispatches.attempts, attempt)));
}

// Attempts

export async function insertAttempt(tx: Executor, row: Omit<typeof webhookDeliveryAttempts.$inferInsert, 'seq'>): Promise<void> {
  await tx.insert(webhookDeliveryAttempts).values(row);
}

/** One page of an endpoint's attempts, newest first, after the attempt with seq `beforeSeq`. */
export async function attemptsPage(db: Executor, endpointId: string, beforeSeq: number | null, limit: number): Promise<AttemptRow[]> {
  const where = beforeSeq === null
    ? eq(webhookDeliveryAttempts.endpointId, endpointId)
    : and(eq(webhookDeliveryAttempts.endpointId, endpointId), lt(webhookDeliveryAttempts.seq, beforeSeq));
  return db.select().from(webhookDeliveryAttempts).where(where).orderBy(desc(webhookDeliveryAttempts.seq)).limit(limit);
}

/** Whether the dispatcher's cursor has passed every outbox event of this day (its partition may go). */
export async function outboxDayPassed(tx: Executor, day: number): Promise<boolean> {
  const [row] = await rows<{ passed: boolean }>(
    tx,
    sql`SELECT NOT EXISTS (
          SELECT 1 FROM events e, webhook_outbox_cursor c
          WHERE c.id = 1 AND e.day = ${sql.raw(String(day))} AND (e.txid, e.seq) > (c.last_txid, c.last_seq)) AS passed`,
  );
  return Boolean(row.passed);
}

/**
 * Deletes outbox events of the default partition (days without a partition of their own:
 * db/day-partitions.ts) written before `before` that the dispatcher's cursor has passed,
 * oldest first in chunks; returns how many. The other days go whole (outboxDayPassed).
 */
export async function pruneOutbox(db: Executor, before: Date, chunk = 10_000): Promise<number> {
  let total = 0;
  for (;;) {
    const gone = await rows<{ seq: number }>(
      db,
      sql`DELETE FROM events_default WHERE seq IN (
            SELECT e.seq FROM events_default e, webhook_outbox_cursor c
            WHERE c.id = 1 AND (e.txid, e.seq) <= (c.last_txid, c.last_seq)
            ORDER BY e.txid, e.seq LIMIT ${chunk})
          AND created_at < ${before}
          RETURNING seq`,
    );
    total += gone.length;
    if (gone.length < chunk) return total;
  }
}

/** Deletes attempt rows and finished batches older than `before`; returns how many attempts went. */
export async function prune(db: Executor, before: Date): Promise<number> {
  const gone = await db
    .delete(webhookDeliveryAttempts)
    .where(lt(webhookDeliveryAttempts.firedAt, before))
    .returning({ seq: webhookDeliveryAttempts.seq });
  await db
    .delete(webhookDispatches)
    .where(and(inArray(webhookDispatches.status, ['delivered', 'failed']), lt(webhookDispatches.updatedAt, before)));
  return gone.length;
}

/** Sealed signing secrets (current and previous) per key id (the key tools). */
export function sealedKeyCounts(db: Executor): Promise<{ key_id: string; n: number }[]> {
  return rows<{ key_id: string; n: number }>(
    db,
    sql`SELECT key_id, count(*)::int AS n FROM (SELECT secret_key_id AS key_id FROM webhook_endpoints
          UNION ALL SELECT previous_secret_key_id FROM webhook_endpoints WHERE previous_secret_key_id IS NOT NULL) s GROUP BY key_id`,
  );
}

/** The key ids on signing secrets, for the start check, which runs before migrations: none while the table does not exist. */
export async function sealedKeyIds(db: Executor): Promise<string[]> {
  if (!(await relationExists(db, 'webhook_endpoints'))) return [];
  const secrets = await rows<{ key_id: string }>(
    db,
    sql`SELECT secret_key_id AS key_id FROM webhook_endpoints UNION SELECT previous_secret_key_id FROM webhook_endpoints WHERE previous_secret_key_id IS NOT NULL`,
  );
  return secrets.map((r) => r.key_id);
}
