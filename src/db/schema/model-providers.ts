import { sql } from 'drizzle-orm';
import { pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

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
