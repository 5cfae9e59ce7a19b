import type { ExperimentsContext } from './context.ts';
import { experimentOf, runsOf } from './run-analysis.ts';
import * as store from './store.ts';

/** The trace ids of a run's rows, in row order (rows without a trace left out): what a review queue takes. */
export async function runTraceIds(ctx: ExperimentsContext, projectId: string, slug: string, runId: string): Promise<string[]> {
  const experiment = await experimentOf(ctx, projectId, slug);
  await runsOf(ctx, experiment, [runId], 'body.experimentRun.runId');
  return store.runTraceIds(ctx.db.orm, experiment.id, runId);
}
