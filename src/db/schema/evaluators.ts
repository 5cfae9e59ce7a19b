import { bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

// The evaluators module's tables: evaluation results, and custom judges with their versions.

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Mirrors migrations/0006_evaluations.sql (and 0013's monitor_id); 0070 partitions it by its trace's day. */
export const evaluations = pgTable(
  'evaluations',
  {
    id: text('id').notNull(),
    projectId: text('project_id').notNull(),
    traceId: text('trace_id').notNull(),
    evaluator: text('evaluator').notNull(),
    name: text('name').notNull(),
    status: text('status', { enum: ['processed', 'skipped', 'error'] }).notNull(),
    score: doublePrecision('score'),
    passed: boolean('passed'),
    label: text('label'),
    details: text('details'),
    costAmount: doublePrecision('cost_amount'),
    costCurrency: text('cost_currency'),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull(),
    isGuardrail: boolean('is_guardrail').notNull(),
    errorType: text('error_type'),
    errorMessage: text('error_message'),
    errorStacktrace: jsonb('error_stacktrace').$type<string[]>(),
    insertedAt: bigint('inserted_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
    /** The monitor that produced it; null when evaluated through the API. */
    monitorId: text('monitor_id'),
    /** The custom evaluator's version that produced it (0024); null for built-in evaluators. */
    evaluatorVersion: integer('evaluator_version'),
    /** Its trace's UTC day (days since 1970-01-01), else the day it was stored on: the partition (0070). */
    day: integer('day').notNull(),
  },
  (t) => [primaryKey({ columns: [t.id, t.day] }), index('evaluations_project_trace').on(t.projectId, t.traceId, t.insertedAt, t.id)],
);

/** The evaluators module's tables of custom evaluators. Mirrors migrations/0023_custom_evaluators.sql. */
export const customEvaluators = pgTable(
  'custom_evaluators',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id').notNull(),
    projectId: text('project_id').notNull(),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    latestVersion: integer('latest_version').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('custom_evaluators_project_slug').on(t.projectId, t.slug)],
);

export const customEvaluatorVersions = pgTable(
  'custom_evaluator_versions',
  {
    evaluatorId: text('evaluator_id').notNull(),
    projectId: text('project_id').notNull(),
    version: integer('version').notNull(),
    config: jsonb('config').$type<Record<string, unknown>>().notNull(),
    commitMessage: text('commit_message'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.evaluatorId, t.version] })],
);
