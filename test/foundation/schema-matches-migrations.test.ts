import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows, type Database } from '../../src/db/index.ts';
import * as schema from '../../src/db/schema/index.ts';
import { databaseKinds, openTestDatabase } from '../support/harness.ts';

/**
 * src/db/schema/ mirrors the SQL migrations (there is no drizzle-kit here to compare them):
 * every table defined has exactly the migrated database's columns, with the same types and
 * nullability, and primary keys.
 */
describe.each(databaseKinds)('the drizzle schema matches the migrations (%s)', (kind) => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await openTestDatabase(kind));
  });
  afterAll(() => drop());

  const tables: PgTable[] = (Object.values(schema) as unknown[]).filter((v): v is PgTable => is(v, PgTable));

  it('defines the traces, spans, monitors and jobs tables among the rest', () => {
    const names = tables.map((t) => getTableConfig(t).name);
    expect(names).toEqual(expect.arrayContaining(['traces', 'spans', 'trace_shares', 'span_log_events', 'monitors', 'jobs']));
  });

  it.each(tables.map((t) => [getTableConfig(t).name, t] as const))('%s', async (name, table) => {
    const config = getTableConfig(table);
    const migrated = await rows<{ column: string; type: string; not_null: boolean }>(
      db.orm,
      sql`SELECT a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
          FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'public' AND c.relname = ${name} AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    );
    const sqlType = (t: string) => ({ bigserial: 'bigint', serial: 'integer', timestamptz: 'timestamp with time zone' })[t] ?? t;
    const defined = config.columns.map((c) => ({ column: c.name, type: sqlType(c.getSQLType()), not_null: c.notNull || c.primary || config.primaryKeys.some((pk) => pk.columns.includes(c)) }));
    const byName = (a: { column: string }, b: { column: string }) => a.column.localeCompare(b.column);
    expect(defined.sort(byName)).toEqual(migrated.map((m) => ({ ...m, not_null: !!m.not_null })).sort(byName));
  });
});
