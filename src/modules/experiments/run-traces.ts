import { sql } from 'drizzle-orm';
import { rows } from '../../db/index.ts';
import type { ExperimentsContext } from './context.ts';
import { experimentOf, runsOf } from './run-analysis.ts';

/** The trace ids of a run's rows, in row order (rows without a trace left out): what a review queue takes. */
export async function runTraceIds(ctx: ExperimentsContext, projectId: string, slug: string, runId: string): Promise<string[]> {
  const experiment = await experimentOf(ctx, projectId, slug);
  await runsOf(ctx, experiment, [runId], 'body.experimentRun.runId');
  const found = await rows<{ trace_id: string }>(
    ctx.db.orm,
    sql`SELECT DISTINCT ON (trace_id) trace_id, idx FROM experiment_results
        WHERE experiment_id = ${experiment.id} AND run_id = ${runId} AND trace_id IS NOT NULL
        ORDER BY trace_id, idx`,
  );
  return found.map((r) => r.trace_id);
}
