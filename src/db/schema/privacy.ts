import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** The privacy module's table. Mirrors migrations/0032_privacy.sql. */
export const privacySettings = pgTable('privacy_settings', {
  projectId: text('project_id').primaryKey(),
  mode: text('mode', { enum: ['off', 'flag', 'mask', 'hash'] }).notNull(),
  entities: jsonb('entities').$type<string[]>().notNull(),
  untouchedKeys: jsonb('untouched_keys').$type<string[]>().notNull(),
  patterns: jsonb('patterns').$type<{ name: string; pattern: string }[]>().notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
});
