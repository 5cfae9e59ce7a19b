import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, customType, integer, jsonb, pgTable, smallint, text, timestamp } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
/** PostgreSQL's 64-bit transaction id, carried as a decimal string. */
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => 'xid8' });

export interface WebhookEventPayload {
  id: string;
  type: string;
  schema_version: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: text('id').primaryKey(),
  organizationId: text('organization_id').notNull(),
  projectId: text('project_id').notNull(),
  url: text('url').notNull(),
  description: text('description'),
  enabledEvents: text('enabled_events').array().notNull(),
  maxBatchSize: integer('max_batch_size').notNull(),
  maxBatchDelayMs: integer('max_batch_delay_ms').notNull(),
  receivesOrganizationEvents: boolean('receives_organization_events').notNull().default(false),
  enabled: boolean('enabled').notNull().default(true),
  disabledReason: text('disabled_reason'),
  disabledAt: at('disabled_at'),
  failingSince: at('failing_since'),
  lastSuccessAt: at('last_success_at'),
  secretKeyId: text('secret_key_id').notNull(),
  secretSealed: text('secret_sealed').notNull(),
  previousSecretKeyId: text('previous_secret_key_id'),
  previousSecretSealed: text('previous_secret_sealed'),
  previousSecretExpiresAt: at('previous_secret_expires_at'),
  /** Set by the database: the creating transaction's id. */
  createdTxid: xid8('created_txid').notNull().default(sql`pg_current_xact_id()`),
  createdAt: at('created_at').notNull().defaultNow(),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

export const webhookOutboxCursor = pgTable('webhook_outbox_cursor', {
  id: smallint('id').primaryKey(),
  lastTxid: xid8('last_txid').notNull(),
  lastSeq: bigint('last_seq', { mode: 'number' }).notNull(),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

export const webhookDispatches = pgTable('webhook_dispatches', {
  id: text('id').primaryKey(),
  endpointId: text('endpoint_id').notNull(),
  status: text('status', { enum: ['open', 'sending', 'retrying', 'delivered', 'failed'] }).notNull(),
  events: jsonb('events').$type<WebhookEventPayload[]>().notNull().default([]),
  eventCount: integer('event_count').notNull().default(0),
  payload: text('payload'),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: at('next_attempt_at').notNull(),
  claimedUntil: at('claimed_until'),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
});

export const webhookDeliveryAttempts = pgTable('webhook_delivery_attempts', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  id: text('id').notNull().unique(),
  endpointId: text('endpoint_id').notNull(),
  dispatchId: text('dispatch_id').notNull(),
  attempt: integer('attempt').notNull(),
  eventCount: integer('event_count').notNull(),
  responseStatus: integer('response_status'),
  latencyMs: integer('latency_ms').notNull(),
  error: text('error'),
  outcome: text('outcome', { enum: ['delivered', 'retrying', 'failed'] }).notNull(),
  nextAttemptAt: at('next_attempt_at'),
  firedAt: at('fired_at').notNull(),
});
