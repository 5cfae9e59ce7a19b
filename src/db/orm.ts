import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type * as schema from './schema/index.ts';

/** The drizzle types over the house's schema; db/index.ts and the connection pieces it opens share them. */
export type Schema = typeof schema;
/** The drizzle database, whichever driver is underneath. */
export type Orm = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Either the database or an open transaction: stores accept both. */
export type Executor = Orm | Tx;
