import { sql } from 'drizzle-orm';
import { bigserial, customType, integer, jsonb, pgTable, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';

/** PostgreSQL's 64-bit transaction id (the webhook dispatcher reads events whose transaction is visible). */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

/** Mirrors migrations/0002_events.sql and 0005's txid; 0070 partitions it by the day of created_at. */
export const events = pgTable(
  'events',
  {
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    id: text('id').notNull(),
    organizationId: text('organization_id').notNull(),
    projectId: text('project_id'),
    type: text('type').notNull(),
    schemaVersion: text('schema_version').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    txid: xid8('txid').notNull().default(sql`pg_current_xact_id()`),
    /** The UTC day (days since 1970-01-01) of created_at: the partition (0070). */
    day: integer('day').notNull(),
  },
  (t) => [primaryKey({ columns: [t.seq, t.day] }), unique('events_id_day_key').on(t.id, t.day)],
);
