import { sql } from 'drizzle-orm';
import { boolean, check, doublePrecision, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** The monitors module's table. Mirrors migrations/0007_monitors_jobs.sql; only monitors/store.ts touches it. */
export const monitors = pgTable(
  'monitors',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id').notNull(),
    projectId: text('project_id').notNull(),
    name: text('name').notNull(),
    evaluator: text('evaluator').notNull(),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    sample: doublePrecision('sample').notNull().default(1),
    filters: jsonb('filters').$type<Record<string, unknown>>(),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('monitors_project').on(t.projectId).where(sql`enabled`), check('monitors_sample_check', sql`sample >= 0 AND sample <= 1`)],
);
