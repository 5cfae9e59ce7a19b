import { bigint, doublePrecision, integer, pgTable, text } from 'drizzle-orm/pg-core';

/** The judge-alignment module's table. Mirrors migrations/0037_judge_trust_rules.sql; only judge-alignment/store.ts touches it. */
export const judgeTrustRules = pgTable('judge_trust_rules', {
  projectId: text('project_id').primaryKey(),
  statistic: text('statistic', { enum: ['kappa', 'accuracy'] }).notNull(),
  atLeast: doublePrecision('at_least').notNull(),
  minimumLabels: integer('minimum_labels').notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});
