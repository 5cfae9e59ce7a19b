import { sql, type SQL } from 'drizzle-orm';

/**
 * A text[] parameter as an array literal: both drivers pass it as one string, and the
 * planner sees the values (ARRAY(SELECT ...) hides them, and with them its estimates).
 * A file of its own, importing only drizzle: the trace filter (a schema the web app
 * type-checks) builds its SQL with it.
 */
export function textArray(values: readonly string[]): SQL {
  const literal = `{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`;
  return sql`${literal}::text[]`;
}
