import { sql, type SQL } from 'drizzle-orm';
import { rows, type Executor, textArray } from '../../db/index.ts';
import type { TraceRowRef } from '../traces/index.ts';

// The trace search's conditions and the traces list's counts over annotations and scores: SQL
// on this module's tables, joined to the trace rows the caller names (TraceRowRef).

/** Trace search filter `has_annotation`: a condition on the trace rows the caller names. */
export function annotatedTraceCondition(trace: TraceRowRef, hasAnnotation: boolean): SQL {
  const exists = sql`EXISTS (SELECT 1 FROM annotations a WHERE a.project_id = ${trace.projectId} AND a.trace_id = ${trace.traceId})`;
  return hasAnnotation ? exists : sql`NOT ${exists}`;
}

/** Trace search filter `score`: the caller's trace rows with a score of the config within min..max, or equal to value. */
export function scoredTraceCondition(trace: TraceRowRef, f: { configId: string; min?: number; max?: number; value?: string | boolean }): SQL {
  const parts = [sql`s.config_id = ${f.configId}`];
  if (f.min !== undefined) parts.push(sql`s.number_value >= ${f.min}`);
  if (f.max !== undefined) parts.push(sql`s.number_value <= ${f.max}`);
  if (f.value !== undefined) parts.push(sql`s.text_value = ${String(f.value)}`);
  return sql`EXISTS (SELECT 1 FROM annotation_scores s WHERE s.project_id = ${trace.projectId} AND s.trace_id = ${trace.traceId} AND ${sql.join(parts, sql` AND `)})`;
}

/** Retention: a swept trace takes its annotations with it. */
export async function deleteTraceAnnotations(tx: Executor, projectId: string, traceIds: string[]): Promise<void> {
  await tx.execute(
    sql`DELETE FROM annotations WHERE project_id = ${projectId} AND trace_id = ANY(${textArray(traceIds)})`,
  );
}

/** The traces list: thumbs up and down per trace, for a page of traces. */
export async function annotationCountsByTrace(db: Executor, projectId: string, traceIds: string[]): Promise<Map<string, { thumbs_up: number; thumbs_down: number }>> {
  const found = await rows<{ trace_id: string; up: number; down: number }>(
    db,
    sql`SELECT trace_id, count(*) FILTER (WHERE is_thumbs_up)::int AS up, count(*) FILTER (WHERE NOT is_thumbs_up)::int AS down
        FROM annotations WHERE project_id = ${projectId} AND trace_id = ANY(${textArray(traceIds)})
        GROUP BY trace_id`,
  );
  return new Map(found.map((r) => [r.trace_id, { thumbs_up: Number(r.up), thumbs_down: Number(r.down) }]));
}
