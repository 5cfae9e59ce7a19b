import { bigint, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** The simulations module's table. Mirrors migrations/0043_simulations.sql; only simulations/store.ts touches it. */
export const simulationRuns = pgTable(
  'simulation_runs',
  {
    projectId: text('project_id').notNull(),
    scenarioRunId: text('scenario_run_id').notNull(),
    organizationId: text('organization_id').notNull(),
    scenarioSetId: text('scenario_set_id').notNull(),
    batchRunId: text('batch_run_id').notNull(),
    scenarioId: text('scenario_id').notNull(),
    name: text('name'),
    description: text('description'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    status: text('status').notNull(),
    verdict: text('verdict'),
    reasoning: text('reasoning'),
    metCriteria: jsonb('met_criteria').$type<string[]>().notNull().default([]),
    unmetCriteria: jsonb('unmet_criteria').$type<string[]>().notNull().default([]),
    error: text('error'),
    messages: jsonb('messages').$type<unknown[]>().notNull().default([]),
    messagesAt: bigint('messages_at', { mode: 'number' }),
    traceIds: jsonb('trace_ids').$type<string[]>().notNull().default([]),
    events: integer('events').notNull().default(0),
    startedAt: bigint('started_at', { mode: 'number' }).notNull(),
    finishedAt: bigint('finished_at', { mode: 'number' }),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
    archivedAt: bigint('archived_at', { mode: 'number' }),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.scenarioRunId] })],
);
