import { badRequest, notFound } from '../../platform/errors.ts';
import type { ExperimentsContext } from './context.ts';
import { lenientPaging, pagination } from './paging.ts';
import { presentAggregate, presentExperiment, presentResults, presentRun } from './presenters.ts';
import { slugify } from '../../platform/slug.schema.ts';
import * as store from './store.ts';

type PagingQuery = { page?: string; pageSize?: string };

/** GET /api/experiments: most recently updated first. */
export async function listExperiments(ctx: ExperimentsContext, projectId: string, query: PagingQuery & { datasetId?: string }) {
  const paging = lenientPaging(query);
  const { items, total } = await store.listExperiments(ctx.db.orm, projectId, paging.pageSize, (paging.page - 1) * paging.pageSize, query.datasetId ?? null);
  return { experiments: items.map(presentExperiment), pagination: pagination(paging, total) };
}

/** GET /api/experiments/runs?experimentSlug=: newest first, each with its aggregate. */
export async function listRuns(ctx: ExperimentsContext, projectId: string, query: PagingQuery & { experimentSlug: string }) {
  const experiment = await store.findExperimentBySlug(ctx.db.orm, projectId, slugify(query.experimentSlug));
  if (!experiment) throw notFound('experiment_not_found', `query.experimentSlug: no experiment ${query.experimentSlug} in this project`);
  const paging = lenientPaging(query);
  const { items, total } = await store.listRuns(ctx.db.orm, experiment.id, paging.pageSize, (paging.page - 1) * paging.pageSize);
  const agg = await store.runAggregates(
    ctx.db.orm,
    experiment.id,
    items.map((r) => r.runId),
  );
  const judges = await store.platformRunJudges(
    ctx.db.orm,
    experiment.id,
    items.map((r) => r.runId),
  );
  const runs = items.map((r) =>
    presentRun(
      r,
      presentAggregate(
        agg.dataset.find((d) => d.runId === r.runId),
        agg.evaluations.find((d) => d.runId === r.runId),
        agg.evaluators.filter((d) => d.runId === r.runId),
        judges.filter((j) => j.runId === r.runId),
      ),
    ),
  );
  return { experimentId: experiment.id, experimentSlug: experiment.slug, runs, pagination: pagination(paging, total) };
}

/**
 * The run a request names: by experimentSlug and run id; without the slug, the project's only
 * run with that id (400 ambiguous_run when several experiments hold it).
 */
export async function resolveRun(ctx: ExperimentsContext, projectId: string, runId: string, experimentSlug: string | undefined) {
  const found = await store.findRuns(ctx.db.orm, projectId, runId, experimentSlug === undefined ? null : slugify(experimentSlug));
  if (found.length === 0) throw notFound('run_not_found', `no run ${runId} in ${experimentSlug === undefined ? 'this project' : `experiment ${experimentSlug}`}`);
  if (found.length > 1) {
    throw badRequest('ambiguous_run', `query.experimentSlug: several experiments of this project hold a run ${runId}; name one with experimentSlug`, 'query.experimentSlug');
  }
  return found[0];
}

/** GET /api/experiments/runs/{runId}/results (and the /api/evaluations/v3 alias). */
export async function readRunResults(ctx: ExperimentsContext, projectId: string, runId: string, experimentSlug: string | undefined) {
  const run = await resolveRun(ctx, projectId, runId, experimentSlug);
  return presentResults(run, await store.readResults(ctx.db.orm, run.experimentId, run.runId));
}
