import { integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export interface PromptMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface PromptInput {
  identifier: string;
  type: string;
}

export interface PromptOutput {
  identifier: string;
  type: string;
  json_schema?: Record<string, unknown>;
}

export const prompts = pgTable('prompts', {
  id: text('id').primaryKey(),
  organizationId: text('organization_id').notNull(),
  projectId: text('project_id'),
  scope: text('scope', { enum: ['ORGANIZATION', 'PROJECT'] }).notNull(),
  handle: text('handle').notNull(),
  name: text('name').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

export const promptVersions = pgTable('prompt_versions', {
  id: text('id').primaryKey(),
  promptId: text('prompt_id').notNull(),
  version: integer('version').notNull(),
  authorId: text('author_id'),
  commitMessage: text('commit_message'),
  model: text('model').notNull(),
  prompt: text('prompt').notNull(),
  messages: jsonb('messages').$type<PromptMessage[]>().notNull(),
  inputs: jsonb('inputs').$type<PromptInput[]>().notNull(),
  outputs: jsonb('outputs').$type<PromptOutput[]>().notNull(),
  /** Model parameters and tools (migrations/0028); their shape is the prompts module's modelParameters. */
  parameters: jsonb('parameters').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: at('created_at').notNull().defaultNow(),
});

export const promptTags = pgTable(
  'prompt_tags',
  {
    promptId: text('prompt_id').notNull(),
    tag: text('tag').notNull(),
    versionId: text('version_id').notNull(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.promptId, t.tag] })],
);
