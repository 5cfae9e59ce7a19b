import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import type { Orm } from './orm.ts';

/**
 * One connection of a PostgreSQL pool, held until `release` (session state such as a WITH HOLD
 * cursor lives on it). `release(failed)`: a connection whose last statement failed is discarded,
 * not pooled. The primary's sessions (reserveSession) and a replica's (replicas.ts) both.
 */
export async function pooledSession(pool: pg.Pool): Promise<{ exec: Orm; release(failed?: boolean): void }> {
  const client = await pool.connect();
  let released = false;
  return {
    // No schema: relational queries are not needed here, and mapping the schema costs ~ms per call.
    exec: drizzlePg({ client }) as unknown as Orm,
    release: (failed = false) => {
      if (released) return;
      released = true;
      client.release(failed ? new Error('discarded after a failed statement') : undefined);
    },
  };
}
