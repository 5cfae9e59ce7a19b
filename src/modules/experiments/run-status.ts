import { experimentPath, type ExperimentsContext } from './context.ts';
import { presentStatus } from './presenters.ts';
import { resolveRun } from './read-runs.ts';
import * as store from './store.ts';

/**
 * GET /api/experiments/runs/{runId}: a logged run is `running` until a finished_at
 * (`completed`) or a stopped_at (`stopped`); the summary, once it ended, is built from the
 * de-duplicated stored results.
 */
export async function runStatus(ctx: ExperimentsContext, projectId: string, runId: string, experimentSlug: string | undefined, origin: string) {
  const run = await resolveRun(ctx, projectId, runId, experimentSlug);
  const ended = run.finishedAt !== null || run.stoppedAt !== null;
  const agg = ended ? await store.runAggregates(ctx.db.orm, run.experimentId, [run.runId]) : { dataset: [], evaluations: [], evaluators: [] };
  const targets = ended ? await store.targetAggregates(ctx.db.orm, run.experimentId, run.runId) : [];
  const judges = ended ? await store.platformRunJudges(ctx.db.orm, run.experimentId, [run.runId]) : [];
  return presentStatus(run, {
    judges,
    dataset: agg.dataset[0],
    evaluations: agg.evaluations[0],
    evaluators: agg.evaluators,
    targets,
    runUrl: `${origin}${experimentPath(projectId, run.slug)}?runId=${encodeURIComponent(run.runId)}`,
  });
}
