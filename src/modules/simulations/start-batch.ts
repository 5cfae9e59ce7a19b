/**
 * POST /api/simulations/sets/{scenarioSetId}/run: a batch of the set's scenarios, each run
 * `repeat` times by the server. Every run is made at once (IN_PROGRESS on the pages, through the
 * same event path as a reported run), its plan (the scenario as it is now, a prompt's version
 * pinned) stored, and one job per run enqueued on the experiments' platform-run queue, all in
 * one transaction; the runner takes the jobs.
 */
import type { z } from 'zod';
import { badRequest, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { enqueueJobs } from '../../platform/jobs/index.ts';
import type { SimulationScope, SimulationsContext } from './context.ts';
import type { StoredAgentTarget } from './define-scenario.ts';
import { applyEvent, redactionFor } from './report-event.ts';
import { MAX_BATCH_RUNS, type RunSetBody, type runSetResponse } from './schemas.ts';
import * as store from './store.ts';

export const SIMULATION_QUEUE = 'simulation-run';
/** A run job is retried this often after failures of the server itself; the run's own failures end it as an error. */
const RUN_JOB_ATTEMPTS = 20;

/** What a server run runs: the scenario as it was when its batch started. */
export interface RunPlan {
  scenarioId: string;
  scenarioSetId: string;
  name: string;
  description: string;
  persona: string;
  goal: string;
  criteria: string[];
  maxTurns: number;
  target: StoredAgentTarget;
  userModel: string;
  judgeModel: string;
  userId: string | null;
}

export const batchPath = (projectId: string, scenarioSetId: string, batchRunId: string) =>
  `/p/${encodeURIComponent(projectId)}/simulations?set=${encodeURIComponent(scenarioSetId)}&batch=${encodeURIComponent(batchRunId)}`;

export async function startBatch(ctx: SimulationsContext, scope: SimulationScope, scenarioSetId: string, body: RunSetBody, origin: string): Promise<z.output<typeof runSetResponse>> {
  const scenarios = await store.listScenarios(ctx.db.orm, scope.projectId, scenarioSetId);
  if (!scenarios.length) throw notFound('not_found', `no scenario in the set ${scenarioSetId}; POST /api/simulations/scenarios defines one`);
  if (scenarios.length * body.repeat > MAX_BATCH_RUNS) {
    throw badRequest(
      'validation_error',
      `body.repeat: ${scenarios.length} scenarios × ${body.repeat} is ${scenarios.length * body.repeat} runs; a batch takes at most ${MAX_BATCH_RUNS}`,
      'body.repeat',
    );
  }
  await ctx.server.models.check(scope, body.userModel, 'body.userModel');
  await ctx.server.models.check(scope, body.judgeModel, 'body.judgeModel');
  const plans: RunPlan[] = [];
  for (const s of scenarios) {
    let target = s.target as unknown as StoredAgentTarget;
    if (target.type === 'prompt') target = { ...target, version: await ctx.server.prompts.version(scope, target.prompt, target.version) };
    plans.push({
      scenarioId: s.id,
      scenarioSetId,
      name: s.name,
      description: s.description,
      persona: s.persona,
      goal: s.goal,
      criteria: s.criteria,
      maxTurns: s.max_turns,
      target,
      userModel: body.userModel,
      judgeModel: body.judgeModel,
      userId: scope.userId,
    });
  }
  const batchRunId = newId('batch');
  const runs = plans.flatMap((plan) => Array.from({ length: body.repeat }, () => ({ plan, scenarioRunId: newId('scenariorun') })));
  const redact = await redactionFor(ctx, scope.projectId);
  const now = ctx.clock.now().getTime();
  await ctx.db.orm.transaction(async (tx) => {
    for (const [i, r] of runs.entries()) {
      // Ordered as listed: the batch page lists runs by start.
      await applyEvent(
        tx,
        scope,
        {
          type: 'SCENARIO_RUN_STARTED',
          timestamp: now + i,
          batchRunId,
          scenarioId: r.plan.scenarioId,
          scenarioRunId: r.scenarioRunId,
          scenarioSetId,
          metadata: { name: r.plan.name, description: r.plan.description, source: 'server', ...(body.label ? { label: body.label } : {}), userModel: body.userModel, judgeModel: body.judgeModel },
        },
        redact,
        now,
      );
    }
    await store.insertServerRuns(
      tx,
      runs.map((r) => ({ projectId: scope.projectId, organizationId: scope.organizationId, scenarioRunId: r.scenarioRunId, batchRunId, plan: r.plan, at: now })),
    );
    await enqueueJobs(
      tx,
      runs.map((r) => ({ queue: SIMULATION_QUEUE, payload: { projectId: scope.projectId, scenarioRunId: r.scenarioRunId }, runAt: now, maxAttempts: RUN_JOB_ATTEMPTS })),
      now,
    );
  });
  ctx.server.kick();
  const base = (ctx.server.publicUrl ?? origin).replace(/\/$/, '');
  return {
    batchRunId,
    scenarioSetId,
    runs: runs.map((r) => ({ scenarioRunId: r.scenarioRunId, scenarioId: r.plan.scenarioId, name: r.plan.name })),
    batchUrl: `${base}${batchPath(scope.projectId, scenarioSetId, batchRunId)}`,
  };
}
