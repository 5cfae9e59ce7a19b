/** The simulations read routes: sets, a set's batches, a batch's runs, one run with its conversation. */
import type { z } from 'zod';
import { notFound } from '../../platform/errors.ts';
import type { SimulationsContext } from './context.ts';
import { MAX_PAGE, type simulationBatchesResponse, type simulationBatchRunsResponse, type simulationRun, type simulationRunSummary, type simulationSetsResponse } from './schemas.ts';
import * as store from './store.ts';

const counts = (r: store.CountsRow) => {
  const finished = r.passed + r.failed;
  return { runs: r.runs, passed: r.passed, failed: r.failed, inProgress: r.in_progress, passRate: finished ? r.passed / finished : null };
};

function summary(r: store.RunSummaryRow): z.output<typeof simulationRunSummary> {
  return {
    scenarioRunId: r.scenario_run_id,
    scenarioId: r.scenario_id,
    scenarioSetId: r.scenario_set_id,
    batchRunId: r.batch_run_id,
    name: r.name,
    description: r.description,
    status: r.status,
    results:
      r.verdict === null
        ? null
        : { verdict: r.verdict as 'success' | 'failure' | 'inconclusive', reasoning: r.reasoning, metCriteria: r.met_criteria, unmetCriteria: r.unmet_criteria, error: r.error },
    messageCount: r.message_count,
    traceIds: r.trace_ids,
    timestamp: r.started_at,
    finishedAt: r.finished_at,
    durationMs: r.finished_at === null ? null : Math.max(0, r.finished_at - r.started_at),
    updatedAt: r.updated_at,
  };
}

export async function listSimulationSets(ctx: SimulationsContext, projectId: string): Promise<z.output<typeof simulationSetsResponse>> {
  const sets = await store.listSets(ctx.db.orm, projectId);
  return { sets: sets.map((s) => ({ scenarioSetId: s.scenario_set_id, batches: s.batches, ...counts(s), lastRunAt: s.last_run_at })) };
}

export async function listSimulationBatches(ctx: SimulationsContext, projectId: string, scenarioSetId: string): Promise<z.output<typeof simulationBatchesResponse>> {
  const batches = await store.listBatches(ctx.db.orm, projectId, scenarioSetId);
  if (!batches.length) throw notFound('not_found', `no scenario set ${scenarioSetId} in this project`);
  return { batches: batches.map((b) => ({ batchRunId: b.batch_run_id, scenarioSetId: b.scenario_set_id, label: b.label, ...counts(b), startedAt: b.started_at, finishedAt: b.finished_at })) };
}

export async function listBatchRuns(ctx: SimulationsContext, projectId: string, batchRunId: string): Promise<z.output<typeof simulationBatchRunsResponse>> {
  const runs = await store.listBatchRuns(ctx.db.orm, projectId, batchRunId, MAX_PAGE);
  if (!runs.length) throw notFound('not_found', `no batch ${batchRunId} in this project`);
  return { batchRunId, scenarioSetId: runs[0].scenario_set_id, runs: runs.map(summary) };
}

export async function getSimulationRun(ctx: SimulationsContext, projectId: string, scenarioRunId: string): Promise<z.output<typeof simulationRun>> {
  const run = await store.findRun(ctx.db.orm, projectId, scenarioRunId);
  if (!run) throw notFound('not_found', `no scenario run ${scenarioRunId} in this project`);
  return { ...summary(run), metadata: run.metadata, messages: run.messages };
}

export async function archiveSimulationSet(ctx: SimulationsContext, projectId: string, scenarioSetId: string): Promise<{ archived: number }> {
  return { archived: await store.archiveSet(ctx.db.orm, projectId, scenarioSetId, ctx.clock.now().getTime()) };
}
