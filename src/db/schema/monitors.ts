import { sql } from 'drizzle-orm';
import { boolean, check, doublePrecision, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

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
    /** 0025: failures go to this review queue (the review module's). */
    reviewQueueId: text('review_queue_id'),
    /** 0048: what it evaluates (trace or thread), and how long a thread must be idle first. */
    unit: text('unit').notNull().default('trace'),
    idleMinutes: integer('idle_minutes'),
    /** 0061: or every so many minutes on the UTC clock instead (never both). */
    scheduleMinutes: integer('schedule_minutes'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('monitors_project').on(t.projectId).where(sql`enabled`), check('monitors_sample_check', sql`sample >= 0 AND sample <= 1`)],
);

/** A monitor run over stored traces. Mirrors migrations/0026_monitor_backfills.sql; only monitors/store.ts touches it. */
export const monitorBackfills = pgTable(
  'monitor_backfills',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id').notNull(),
    projectId: text('project_id').notNull(),
    monitorId: text('monitor_id').notNull(),
    state: text('state').notNull(),
    request: jsonb('request').$type<Record<string, unknown>>().notNull(),
    traceIds: jsonb('trace_ids').$type<string[]>().notNull().default([]),
    position: integer('position').notNull().default(0),
    total: integer('total').notNull().default(0),
    evaluated: integer('evaluated').notNull().default(0),
    skipped: integer('skipped').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('monitor_backfills_monitor').on(t.projectId, t.monitorId, t.createdAt)],
);
