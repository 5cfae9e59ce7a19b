import { bigint, doublePrecision, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';

/** The judge-alignment module's tables. Mirror migrations/0037_judge_trust_rules.sql; only judge-alignment/store.ts touches it. */
export const judgeTrustRules = pgTable('judge_trust_rules', {
  projectId: text('project_id').primaryKey(),
  statistic: text('statistic', { enum: ['kappa', 'accuracy'] }).notNull(),
  atLeast: doublePrecision('at_least').notNull(),
  minimumLabels: integer('minimum_labels').notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});

/** Mirrors migrations/0053_judge_versions_and_trusted_alerts.sql and 0057_judge_comparison_runs.sql; only judge-alignment/store.ts touches it. */
export const judgeVersionComparisons = pgTable(
  'judge_version_comparisons',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id').notNull(),
    projectId: text('project_id').notNull(),
    evaluator: text('evaluator').notNull(),
    baselineVersion: integer('baseline_version').notNull(),
    candidateVersion: integer('candidate_version').notNull(),
    scoreConfigId: text('score_config_id').notNull(),
    itemLimit: integer('item_limit').notNull(),
    status: text('status', { enum: ['running', 'done', 'failed'] }).notNull(),
    error: text('error'),
    result: jsonb('result').$type<Record<string, unknown>>(),
    createdBy: text('created_by'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    finishedAt: bigint('finished_at', { mode: 'number' }),
    /** the experiment run of the new version (null on comparisons made before runs backed them) */
    experimentSlug: text('experiment_slug'),
    runId: text('run_id'),
    runUrl: text('run_url'),
    /** per labelled item: its trace, people's value, the measured version's value, its row in the run (null: the trace was gone) */
    items: jsonb('items').$type<{ traceId: string; human: number | string | boolean; baseline: number | string | boolean; row: number | null }[]>(),
  },
  (t) => [index('judge_version_comparisons_project').on(t.projectId, t.evaluator, t.createdAt)],
);
