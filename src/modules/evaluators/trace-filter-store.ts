import { and, eq, isNotNull, ne, sql, type SQL } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { rows, type Executor, textArray } from '../../db/index.ts';
import { evaluations } from '../../db/schema/evaluators.ts';
import type { EvaluationChip, TraceRowRef } from '../traces/index.ts';

/** Trace search filter `evaluation`: some stored result on the caller's trace row matches every given field. */
export function evaluationTraceCondition(trace: TraceRowRef, f: { evaluator?: string; passed?: boolean; status?: string }): SQL {
  const parts: SQL[] = [sql`e.project_id = ${trace.projectId}`, sql`e.trace_id = ${trace.traceId}`];
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

/** Analytics: a project's evaluations that gave a verdict, as a typed relation to join with traces. */
export function verdictsRelation(projectId: string) {
  return new QueryBuilder()
    .select({ traceId: evaluations.traceId, name: evaluations.name, evaluator: evaluations.evaluator, passed: evaluations.passed })
    .from(evaluations)
    .where(and(eq(evaluations.projectId, projectId), eq(evaluations.status, 'processed'), isNotNull(evaluations.passed)))
    .as('verdicts');
}

/** Alerts and reports: a project's results that ran (processed or error; skipped ones said nothing), as a typed relation to join with traces. */
export function evaluationResultsRelation(projectId: string) {
  return new QueryBuilder()
    .select({ traceId: evaluations.traceId, name: evaluations.name, evaluator: evaluations.evaluator, status: evaluations.status, passed: evaluations.passed, score: evaluations.score })
    .from(evaluations)
    .where(and(eq(evaluations.projectId, projectId), ne(evaluations.status, 'skipped')))
    .as('results');
}
