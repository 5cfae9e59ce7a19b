import { notFound } from '../../platform/errors.ts';
import type { ExperimentsContext } from './context.ts';
import { presentAggregate, presentRun } from './presenters.ts';
import { slugify } from '../../platform/slug.schema.ts';
import * as store from './store.ts';

/** PATCH /api/experiments/{slug}/runs/{runId}: a new name, or null for the default one. */
export async function renameRun(ctx: ExperimentsContext, projectId: string, rawSlug: string, runId: string, name: string | null) {
  const experiment = await store.findExperimentBySlug(ctx.db.orm, projectId, slugify(rawSlug));
  if (!experiment) throw notFound('experiment_not_found', `no experiment "${rawSlug}" in this project`);
  const run = await store.renameRun(ctx.db.orm, experiment.id, runId, name?.trim() || null);
  if (!run) throw notFound('run_not_found', `no run ${runId} in experiment ${experiment.slug}`);
  const agg = await store.runAggregates(ctx.db.orm, experiment.id, [run.runId]);
  return presentRun(run, presentAggregate(agg.dataset[0], agg.evaluations[0], agg.evaluators));
}
