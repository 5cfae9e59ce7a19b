import { sql } from 'drizzle-orm';
import { rows, type Executor } from '../../src/db/index.ts';

/**
 * Every row of every table of the public schema, as text: the proofs that a value never
 * reaches the database read it all. A partitioned table is read through its parent (which
 * holds its partitions' rows): a day's partition can be dropped by retention or the outbox
 * between listing the tables and reading one of them.
 */
export async function everyTableAsText(db: Executor): Promise<{ tables: string[]; text: string }> {
  const tables = await publicTables(db);
  let text = '';
  for (const table of tables) text += (await rows<{ row: string }>(db, sql`SELECT t::text AS row FROM ${sql.identifier(table)} t`)).map((r) => r.row).join('\n');
  return { tables, text };
}

/** The public schema's tables, a partitioned one by its parent only (its rows include its partitions'). */
export async function publicTables(db: Executor): Promise<string[]> {
  return (
    await rows<{ name: string }>(
      db,
      sql`SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`,
    )
  ).map((r) => r.name);
}
