import { sql } from 'drizzle-orm';
import { bigint, boolean, doublePrecision, index, integer, pgTable, text } from 'drizzle-orm/pg-core';

/** The threads module's table: evaluations of whole threads. Mirrors migrations/0048_thread_monitors.sql; only threads/store.ts touches it. */
export const threadEvaluations = pgTable(
  'thread_evaluations',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    threadId: text('thread_id').notNull(),
    monitorId: text('monitor_id'),
    evaluator: text('evaluator').notNull(),
    evaluatorVersion: integer('evaluator_version'),
    name: text('name').notNull(),
    status: text('status').notNull(),
    passed: boolean('passed'),
    score: doublePrecision('score'),
    label: text('label'),
    details: text('details'),
    costAmount: doublePrecision('cost_amount'),
    traceIds: text('trace_ids').array().notNull(),
    turns: integer('turns').notNull(),
    coveredThrough: bigint('covered_through', { mode: 'number' }).notNull(),
    insertedAt: bigint('inserted_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('thread_evaluations_thread').on(t.projectId, t.threadId, sql`inserted_at DESC`), index('thread_evaluations_monitor').on(t.projectId, t.monitorId, sql`inserted_at DESC`),
    // 0062: the analytics series read a project's results over a range.
    index('thread_evaluations_project_time').on(t.projectId, t.insertedAt),
    // 0066: the threads list filters and sorts by one evaluation's newest result per thread.
    index('thread_evaluations_name').on(t.projectId, t.name, t.threadId, sql`inserted_at DESC`),
  ],
);
