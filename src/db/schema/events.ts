import { bigserial, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const events = pgTable('events', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  id: text('id').notNull().unique(),
  organizationId: text('organization_id').notNull(),
  projectId: text('project_id'),
  type: text('type').notNull(),
  schemaVersion: text('schema_version').notNull(),
  data: jsonb('data').$type<Record<string, unknown>>().notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
