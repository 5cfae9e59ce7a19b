import { sql, type SQL } from 'drizzle-orm';
import { rows, type Executor } from '../../db/index.ts';

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

/** The traces list: thumbs up and down per trace, for a page of traces. */
export async function annotationCountsByTrace(db: Executor, projectId: string, traceIds: string[]): Promise<Map<string, { thumbs_up: number; thumbs_down: number }>> {
  const found = await rows<{ trace_id: string; up: number; down: number }>(
    db,
    sql`SELECT trace_id, count(*) FILTER (WHERE is_thumbs_up)::int AS up, count(*) FILTER (WHERE NOT is_thumbs_up)::int AS down
        FROM annotations WHERE project_id = ${projectId} AND trace_id = ANY(ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(traceIds)}::jsonb)))
        GROUP BY trace_id`,
  );
  return new Map(found.map((r) => [r.trace_id, { thumbs_up: Number(r.up), thumbs_down: Number(r.down) }]));
}

/** Analytics: rows (trace_id, is_thumbs_up) of a project's annotations, to join with traces. */
export function thumbsSql(projectId: string): SQL {
  return sql`SELECT trace_id, is_thumbs_up FROM annotations WHERE project_id = ${projectId}`;
}
