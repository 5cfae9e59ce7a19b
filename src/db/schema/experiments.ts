import { bigint, boolean, doublePrecision, integer, json, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const ms = (name: string) => bigint(name, { mode: 'number' });

/** An experiment of a project, found by its slug (unique per project). */
export const experiments = pgTable('experiments', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  slug: text('slug').notNull(),
  name: text('name'),
  type: text('type').notNull(),
  workflowId: text('workflow_id'),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
  /** the run comparisons default to (0022) */
  baselineRunId: text('baseline_run_id'),
});

/** A run of an experiment; timestamps in milliseconds since the epoch. */
export const experimentRuns = pgTable(
  'experiment_runs',
  {
    experimentId: text('experiment_id').notNull(),
    runId: text('run_id').notNull(),
    projectId: text('project_id').notNull(),
    workflowVersionId: text('workflow_version_id'),
    targets: jsonb('targets').notNull().$type<unknown[]>(),
    progress: integer('progress').notNull(),
    total: integer('total').notNull(),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
    finishedAt: ms('finished_at'),
    stoppedAt: ms('stopped_at'),
    /** from the experiment_results_versions sequence, renewed by every write of the run's rows or evaluations (0029) */
    resultsVersion: bigint('results_version', { mode: 'number' }).notNull(),
    /** the name a person gave the run; null: the name made from its targets and start (0030) */
    name: text('name'),
  },
  (t) => [primaryKey({ columns: [t.experimentId, t.runId] })],
);

/** One dataset row of a run per target ('' = no target). */
export const experimentResults = pgTable(
  'experiment_results',
  {
    experimentId: text('experiment_id').notNull(),
    runId: text('run_id').notNull(),
    idx: integer('idx').notNull(),
    targetId: text('target_id').notNull(),
    // json: keys in the order they were sent (migration 0033).
    entry: json('entry').notNull(),
    predicted: json('predicted'),
    cost: doublePrecision('cost'),
    duration: doublePrecision('duration'),
    error: text('error'),
    traceId: text('trace_id'),
    /** which of the row's repetitions; 0 for results logged without one (0038) */
    repetition: integer('repetition').notNull(),
  },
  (t) => [primaryKey({ columns: [t.experimentId, t.runId, t.idx, t.targetId, t.repetition] })],
);

/** One evaluator's result on one row and target of a run. */
export const experimentEvaluations = pgTable(
  'experiment_evaluations',
  {
    experimentId: text('experiment_id').notNull(),
    runId: text('run_id').notNull(),
    idx: integer('idx').notNull(),
    targetId: text('target_id').notNull(),
    evaluator: text('evaluator').notNull(),
    name: text('name'),
    status: text('status').notNull(),
    score: doublePrecision('score'),
    label: text('label'),
    passed: boolean('passed'),
    details: text('details'),
    cost: doublePrecision('cost'),
    duration: doublePrecision('duration'),
    inputs: jsonb('inputs'),
    repetition: integer('repetition').notNull(),
  },
  (t) => [primaryKey({ columns: [t.experimentId, t.runId, t.idx, t.targetId, t.evaluator, t.repetition] })],
);

/** The definition of a platform-run experiment (EVALUATIONS_V3): dataset, targets, evaluators. */
export const experimentDefinitions = pgTable('experiment_definitions', {
  experimentId: text('experiment_id').primaryKey(),
  projectId: text('project_id').notNull(),
  definition: jsonb('definition').notNull().$type<Record<string, unknown>>(),
  updatedAt: at('updated_at').notNull(),
});

/** A platform run: its plan (the definition as it started), the rows it runs on, its state. */
export const experimentPlatformRuns = pgTable(
  'experiment_platform_runs',
  {
    experimentId: text('experiment_id').notNull(),
    runId: text('run_id').notNull(),
    projectId: text('project_id').notNull(),
    organizationId: text('organization_id').notNull(),
    status: text('status').notNull(),
    plan: jsonb('plan').notNull().$type<Record<string, unknown>>(),
    rows: jsonb('rows').notNull().$type<unknown[]>(),
    error: text('error'),
  },
  (t) => [primaryKey({ columns: [t.experimentId, t.runId] })],
);
