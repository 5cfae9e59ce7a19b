import { sql, type SQL } from 'drizzle-orm';
import { rows, type Executor, textArray } from '../../db/index.ts';
import type { EvaluationChip } from '../traces/index.ts';

/** Trace search filter `evaluation`: some stored result on the trace matches every given field. */
export function evaluationTraceCondition(f: { evaluator?: string; passed?: boolean; status?: string }): SQL {
  const parts: SQL[] = [sql`e.project_id = traces.project_id`, sql`e.trace_id = traces.trace_id`];
  if (f.evaluator !== undefined) parts.push(sql`(e.evaluator = ${f.evaluator} OR e.name = ${f.evaluator})`);
  if (f.passed !== undefined) parts.push(sql`e.passed = ${f.passed}`);
  if (f.status !== undefined) parts.push(sql`e.status = ${f.status}`);
  return sql`EXISTS (SELECT 1 FROM evaluations e WHERE ${sql.join(parts, sql` AND `)})`;
}

/** The traces list: each evaluation of a page of traces, briefly, oldest first. */
export async function evaluationChipsByTrace(db: Executor, projectId: string, traceIds: string[]): Promise<Map<string, EvaluationChip[]>> {
  const found = await rows<EvaluationChip & { trace_id: string }>(
    db,
    sql`SELECT trace_id, id AS evaluation_id, name, status, passed, score, label
        FROM evaluations WHERE project_id = ${projectId} AND trace_id = ANY(${textArray(traceIds)})
        ORDER BY inserted_at, id`,
  );
  const byTrace = new Map<string, EvaluationChip[]>();
  for (const { trace_id, ...chip } of found) {
    const list = byTrace.get(trace_id) ?? byTrace.set(trace_id, []).get(trace_id)!;
    list.push({ ...chip, score: chip.score === null ? null : Number(chip.score) });
  }
  return byTrace;
}


/** Analytics: rows (trace_id, name, evaluator, passed) of a project's evaluations that gave a verdict. */
export function verdictsSql(projectId: string): SQL {
  return sql`SELECT trace_id, name, evaluator, passed FROM evaluations WHERE project_id = ${projectId} AND status = 'processed' AND passed IS NOT NULL`;
}

/** Alerts and reports: rows (trace_id, name, evaluator, status, passed, score) of a project's results that ran (processed or error; skipped ones said nothing). */
export function evaluationResultsSql(projectId: string): SQL {
  return sql`SELECT trace_id, name, evaluator, status, passed, score FROM evaluations WHERE project_id = ${projectId} AND status <> 'skipped'`;
}
