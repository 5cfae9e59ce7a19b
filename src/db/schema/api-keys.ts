import { jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

// The api-keys module's tables.

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const apiKeys = pgTable('api_keys', {
  id: text('id').primaryKey(),
  organizationId: text('organization_id').notNull(),
  projectId: text('project_id'),
  keyType: text('key_type', { enum: ['project', 'personal', 'service'] }).notNull(),
  name: text('name').notNull(),
  description: text('description'),
  ownerUserId: text('owner_user_id'),
  createdByUserId: text('created_by_user_id'),
  permissionMode: text('permission_mode', { enum: ['all', 'readonly', 'restricted'] }).notNull(),
  permissions: jsonb('permissions').$type<string[]>().notNull(),
  secretHash: text('secret_hash').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
  revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
  createdAt: createdAt(),
});

export const apiKeyBindings = pgTable(
  'api_key_bindings',
  {
    apiKeyId: text('api_key_id').notNull(),
    role: text('role', { enum: ['ADMIN', 'MEMBER', 'VIEWER', 'CUSTOM'] }).notNull(),
    scopeType: text('scope_type', { enum: ['ORGANIZATION', 'PROJECT'] }).notNull(),
    scopeId: text('scope_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.scopeType, t.scopeId] })],
);
