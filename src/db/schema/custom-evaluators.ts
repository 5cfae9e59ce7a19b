import { sql } from 'drizzle-orm';
import { integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** The model-providers module's table. Mirrors migrations/0023_custom_evaluators.sql. */
export const modelProviders = pgTable(
  'model_providers',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id').notNull(),
    projectId: text('project_id'),
    name: text('name').notNull(),
    kind: text('kind', { enum: ['openai', 'openai_compatible', 'azure_openai', 'anthropic'] }).notNull(),
    baseUrl: text('base_url'),
    models: text('models').array().notNull().default(sql`'{}'`),
    keyId: text('key_id').notNull(),
    keySealed: text('key_sealed').notNull(),
    keyLast4: text('key_last4').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('model_providers_project_name').on(t.projectId, t.name).where(sql`project_id IS NOT NULL`),
    uniqueIndex('model_providers_organization_name').on(t.organizationId, t.name).where(sql`project_id IS NULL`),
  ],
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
