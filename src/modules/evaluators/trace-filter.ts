import { sql, type SQL } from 'drizzle-orm';

/** Trace search filter `evaluation`: some stored result on the trace matches every given field. */
export function evaluationTraceCondition(f: { evaluator?: string; passed?: boolean; status?: string }): SQL {
  const parts: SQL[] = [sql`e.project_id = traces.project_id`, sql`e.trace_id = traces.trace_id`];
  if (f.evaluator !== undefined) parts.push(sql`(e.evaluator = ${f.evaluator} OR e.name = ${f.evaluator})`);
  if (f.passed !== undefined) parts.push(sql`e.passed = ${f.passed}`);
  if (f.status !== undefined) parts.push(sql`e.status = ${f.status}`);
  return sql`EXISTS (SELECT 1 FROM evaluations e WHERE ${sql.join(parts, sql` AND `)})`;
}
