import { pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

// Mirrors migrations/0017_installation_keys.sql: what the data expects of the installation's keys (ops/key-check.ts).
export const installationKeys = pgTable(
  'installation_keys',
  {
    kind: text('kind', { enum: ['token-hash', 'encryption'] }).notNull(),
    keyId: text('key_id').notNull(),
    verifier: text('verifier'),
    recordedAt: timestamp('recorded_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.keyId] })],
);
