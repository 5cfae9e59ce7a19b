import { jsonParam } from '../../db/index.ts';
import { emitEvents, type NewEvent } from '../../platform/events/index.ts';
import { AppError, badRequest } from '../../platform/errors.ts';
import type { ExperimentsContext } from './context.ts';
import { findOrCreateExperiment } from './init-experiment.ts';
import { MIN_MS_TIMESTAMP, TARGET_TYPES, type LogResultsBody } from './schemas.ts';
import { runRedaction } from './redaction.ts';
import * as store from './store.ts';

/**
 * POST /api/evaluations/batch/log_results, applied whole or not at all in one transaction.
 * Merge rules (docs/experiments.md): rows keyed by (index, target_id, repetition), evaluations by
 * (index, target_id, repetition, evaluator) (a missing repetition is 0), targets by id, the last accepted post winning; progress is
 * the number of distinct row keys; total the largest posted total or progress.
 */
export async function logResults(ctx: ExperimentsContext, scope: { organizationId: string; projectId: string }, raw: LogResultsBody): Promise<{ message: 'ok' }> {
  // Model output may carry NUL or lone surrogates: stored as U+FFFD (as trace ingestion does).
  const body = JSON.parse(jsonParam(raw)) as LogResultsBody;
  const timestamps = {
    createdAt: msTimestamp(body.timestamps?.created_at, 'created_at'),
    finishedAt: msTimestamp(body.timestamps?.finished_at, 'finished_at'),
    stoppedAt: msTimestamp(body.timestamps?.stopped_at, 'stopped_at'),
  };
  const targets = (body.targets ?? []).map((t, i) => toTarget(t, i));
  const results = dedupe(
    (body.dataset ?? []).map(
      (d): store.ResultRowIn => ({
        idx: d.index,
        targetId: d.target_id ?? '',
        repetition: d.repetition ?? 0,
        entry: d.entry,
        predicted: d.predicted ?? null,
        cost: d.cost ?? null,
        duration: d.duration ?? null,
        error: d.error ?? null,
        traceId: d.trace_id || null,
      }),
    ),
    (r) => `${r.idx}\u0000${r.targetId}\u0000${r.repetition}`,
  );
  const evaluations = dedupe(
    (body.evaluations ?? []).map(
      (e): store.EvaluationIn => ({
        idx: e.index,
        targetId: e.target_id ?? '',
        repetition: e.repetition ?? 0,
        evaluator: e.evaluator,
        name: e.name ?? null,
        status: e.status,
        score: e.score ?? null,
        label: e.label ?? null,
        passed: e.passed ?? null,
        details: e.details ?? null,
        cost: e.cost ?? null,
        duration: e.duration ?? null,
        inputs: e.inputs ?? null,
      }),
    ),
    (e) => `${e.idx}\u0000${e.targetId}\u0000${e.repetition}\u0000${e.evaluator}`,
  );

  const redaction = await runRedaction(ctx, scope.projectId);
  const redactedResults = results.map((r) => redaction.result(r));
  const redactedEvaluations = evaluations.map((e) => redaction.evaluation(e));
  const now = ctx.clock.now();
  await ctx.db.orm.transaction(async (tx) => {
    const experiment = await findOrCreateExperiment(
      tx,
      scope.projectId,
      {
        slug: body.experiment_slug,
        id: body.experiment_id,
        name: body.name,
        workflowId: body.workflow_id,
        type: 'BATCH_EVALUATION_V2',
        fields: { slug: 'body.experiment_slug', id: 'body.experiment_id' },
      },
      now,
    );
    const { created, run } = await store.lockRun(tx, {
      experimentId: experiment.id,
      runId: body.run_id,
      projectId: scope.projectId,
      createdAt: timestamps.createdAt ?? now.getTime(),
      now: now.getTime(),
    });
    const added = await store.upsertResults(tx, experiment.id, run.runId, redactedResults);
    await store.upsertEvaluations(tx, experiment.id, run.runId, redactedEvaluations);

    const mergedTargets = [...run.targets];
    for (const t of targets) {
      const at = mergedTargets.findIndex((m) => m.id === t.id);
      if (at >= 0) mergedTargets[at] = t;
      else mergedTargets.push(t);
    }
    const progress = run.progress + added;
    const next: store.RunRow = {
      ...run,
      targets: mergedTargets,
      workflowVersionId: body.workflow_version_id ?? run.workflowVersionId,
      progress,
      total: Math.max(run.total, progress, Math.round(body.total ?? 0)),
      updatedAt: now.getTime(),
      finishedAt: timestamps.finishedAt ?? run.finishedAt,
      stoppedAt: timestamps.stoppedAt ?? run.stoppedAt,
    };
    await store.saveRun(tx, next);

    const events: NewEvent[] = [];
    const about = { experiment: { id: experiment.id, slug: experiment.slug, name: experiment.name } };
    if (created) {
      events.push({ ...scope, type: 'experiment_run.started', data: { ...about, run: { runId: next.runId, createdAt: next.createdAt } } });
    }
    const endedBefore = run.finishedAt !== null || run.stoppedAt !== null;
    if (!endedBefore && (next.finishedAt !== null || next.stoppedAt !== null)) {
      events.push({
        ...scope,
        type: 'experiment_run.finished',
        data: {
          ...about,
          run: {
            runId: next.runId,
            status: next.stoppedAt !== null ? 'stopped' : 'completed',
            createdAt: next.createdAt,
            finishedAt: next.finishedAt,
            stoppedAt: next.stoppedAt,
            progress: next.progress,
            total: next.total,
          },
        },
      });
    }
    await emitEvents(tx, events, now);
  });
  return { message: 'ok' };
}

function msTimestamp(value: number | null | undefined, name: string): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isFinite(value) || value < MIN_MS_TIMESTAMP) {
    throw new AppError(
      400,
      'seconds_timestamp',
      `body.timestamps.${name}: ${value} looks like seconds since the epoch; run timestamps are milliseconds (multiply by 1000)`,
      { field: `body.timestamps.${name}` },
    );
  }
  return Math.round(value);
}

type TargetInput = NonNullable<LogResultsBody['targets']>[number];

function toTarget(t: TargetInput, i: number): store.StoredTarget {
  let type: string = t.type;
  const metaType = t.metadata?.type;
  if (typeof metaType === 'string') {
    if (!(TARGET_TYPES as readonly string[]).includes(metaType)) {
      throw badRequest('validation_error', `body.targets.${i}.metadata.type: "${metaType}" is not one of ${TARGET_TYPES.join(', ')}`, `body.targets.${i}.metadata.type`);
    }
    type = metaType;
  }
  return {
    id: t.id,
    name: t.name,
    type,
    promptId: t.prompt_id ?? null,
    promptVersion: t.prompt_version ?? null,
    agentId: t.agent_id ?? null,
    evaluatorId: t.evaluator_id ?? null,
    model: t.model ?? null,
    metadata: t.metadata ?? null,
  };
}

/** Within one post a repeated key keeps the later item (in the later item's place). */
function dedupe<T>(items: T[], key: (item: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) {
    const k = key(item);
    byKey.delete(k);
    byKey.set(k, item);
  }
  return [...byKey.values()];
}
