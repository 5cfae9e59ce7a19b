import { sql } from 'drizzle-orm';
import { bigserial, customType, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** PostgreSQL's 64-bit transaction id (the webhook dispatcher reads events whose transaction is visible). */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

/** Mirrors migrations/0002_events.sql and 0005's txid. */
export const events = pgTable('events', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  id: text('id').notNull().unique(),
  organizationId: text('organization_id').notNull(),
  projectId: text('project_id'),
  type: text('type').notNull(),
  schemaVersion: text('schema_version').notNull(),
  data: jsonb('data').$type<Record<string, unknown>>().notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  txid: xid8('txid').notNull().default(sql`pg_current_xact_id()`),
});
