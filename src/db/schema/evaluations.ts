import { bigint, boolean, integer, doublePrecision, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';

/** Mirrors migrations/0006_evaluations.sql (and 0013's monitor_id). */
export const evaluations = pgTable(
  'evaluations',
  {
    id: text('id').primaryKey(),
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
  },
  (t) => [index('evaluations_project_trace').on(t.projectId, t.traceId, t.insertedAt, t.id)],
);
