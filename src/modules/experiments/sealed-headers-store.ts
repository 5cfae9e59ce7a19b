import { sql } from 'drizzle-orm';
import { rows, type Executor } from '../../db/index.ts';

/** HTTP targets' sealed headers per key id, inside the JSON of definitions and of the plans runs keep (the key tools). */
export function sealedHeaderKeyCounts(db: Executor): Promise<{ key_id: string; n: number }[]> {
  return rows<{ key_id: string; n: number }>(
    db,
    sql`SELECT t->'sealed_headers'->'sealed'->>'keyId' AS key_id, count(*)::int AS n
          FROM (SELECT jsonb_array_elements(definition->'targets') AS t FROM experiment_definitions
                UNION ALL SELECT jsonb_array_elements(plan->'targets') FROM experiment_platform_runs) s
          WHERE t ? 'sealed_headers' GROUP BY 1`,
  );
}
