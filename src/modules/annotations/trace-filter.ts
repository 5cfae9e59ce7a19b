import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/index.ts';

/** Trace search filter `has_annotation`: a condition on rows of `traces`. */
export function annotatedTraceCondition(hasAnnotation: boolean): SQL {
  const exists = sql`EXISTS (SELECT 1 FROM annotations a WHERE a.project_id = traces.project_id AND a.trace_id = traces.trace_id)`;
  return hasAnnotation ? exists : sql`NOT ${exists}`;
}

/** Retention: a swept trace takes its annotations with it. */
export async function deleteTraceAnnotations(tx: Executor, projectId: string, traceIds: string[]): Promise<void> {
  await tx.execute(
    sql`DELETE FROM annotations WHERE project_id = ${projectId} AND trace_id = ANY(ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(traceIds)}::jsonb)))`,
  );
}
