import { index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const agentCacheEntries = pgTable(
  'agent_cache_entries',
  {
    projectId: text('project_id').notNull(),
    name: text('name').notNull(),
    keyId: text('key_id').notNull(),
    sealed: text('sealed').notNull(),
    expiresAt: at('expires_at').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.name] }), index('agent_cache_entries_key_id').on(t.keyId)],
);
