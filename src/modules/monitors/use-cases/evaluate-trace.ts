import { AppError } from '../../../platform/errors.ts';
import type { MonitorsContext } from '../context.ts';
import type { MonitorRow } from '../store.ts';
import { traceData, type TraceDetailLike } from '../trace-data.schema.ts';

/** What evaluating one trace came to: a stored result (an error result too), or none (trace gone, or it lacks what the evaluator needs). */
export type MonitorEvaluation = 'evaluated' | 'error' | 'gone' | 'unjudgeable';

/**
 * Evaluates a whole trace with the monitor, live or in a backfill alike: the result is stored
 * on the trace as the monitor's evaluation, and a trace it fails goes to its review queue.
 */
export async function evaluateTrace(ctx: MonitorsContext, monitor: MonitorRow, traceId: string): Promise<Exclude<MonitorEvaluation, 'unjudgeable'> | { unjudgeable: string }> {
  const { project_id: projectId, organization_id: organizationId } = monitor;
  let detail: TraceDetailLike;
  try {
    detail = await ctx.traceDetail(projectId, traceId);
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return 'gone'; // deleted since (retention, project removal)
    throw err;
  }
  let outcome: { failed: boolean; error: boolean };
  try {
    outcome = await ctx.evaluate({ organizationId, projectId }, monitor.evaluator, { data: traceData(detail), settings: monitor.settings, trace_id: traceId, name: monitor.name }, monitor.id);
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return { unjudgeable: err.message };
    throw err;
  }
  // A retried job adds the trace again: a queue holds each trace once.
  if (outcome.failed && monitor.review_queue_id) await ctx.addToReviewQueue(projectId, monitor.review_queue_id, traceId);
  return outcome.error ? 'error' : 'evaluated';
}
