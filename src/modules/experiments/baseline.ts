import type { z } from 'zod';
import type { ExperimentsContext } from './context.ts';
import * as cstore from './comparison-store.ts';
import { experimentOf, runsOf } from './run-analysis.ts';
import type { baselineResponse } from './schemas.ts';

type BaselineAnswer = z.output<typeof baselineResponse>;

/** GET /api/experiments/{slug}/baseline */
export async function readBaseline(ctx: ExperimentsContext, projectId: string, slug: string): Promise<BaselineAnswer> {
  const experiment = await experimentOf(ctx, projectId, slug);
  return { experimentSlug: experiment.slug, baselineRunId: experiment.baselineRunId };
}

/** PUT /api/experiments/{slug}/baseline: marks a run of the experiment as its baseline (null: none). */
export async function markBaseline(ctx: ExperimentsContext, projectId: string, slug: string, runId: string | null): Promise<BaselineAnswer> {
  const experiment = await experimentOf(ctx, projectId, slug);
  if (runId !== null) await runsOf(ctx, experiment, [runId], 'body.runId');
  await cstore.setBaseline(ctx.db.orm, experiment.id, runId);
  return { experimentSlug: experiment.slug, baselineRunId: runId };
}
