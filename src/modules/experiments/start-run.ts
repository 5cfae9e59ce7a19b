import { AppError, badRequest } from '../../platform/errors.ts';
import { emitEvents } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import { enqueueJobs } from '../../platform/jobs/index.ts';
import { datasetForRuns, entriesAsOf } from '../datasets/index.ts';
import { experimentPath } from './context.ts';
import { requirePlatformExperiment } from './define-experiment.ts';
import type { PlatformDeps, PlatformScope } from './platform-context.ts';
import { finishedEvent, RUN_QUEUE, type PlatformRunner, type RunPlan, type RunRow } from './run-cells.ts';
import type { StartRunBody } from './schemas.ts';
import { slugify } from '../../platform/slug.schema.ts';
import { runRedaction } from './redaction.ts';
import * as store from './store.ts';
import { notFound } from '../../platform/errors.ts';

/** A run job is retried this often after failures of the server itself (the database); cells keep their own errors. */
const RUN_JOB_ATTEMPTS = 50;

/**
 * POST /api/experiments/{slug}/run: copies the rows the run evaluates (so later dataset edits
 * never change it), pins prompt versions, creates the run and its job in one transaction,
 * and wakes the runner. `beforeStart` sees the run id before any cell runs (event streams).
 */
export async function startRun(
  deps: PlatformDeps,
  runner: PlatformRunner,
  scope: PlatformScope,
  rawSlug: string,
  body: StartRunBody,
  origin: string,
  beforeStart?: (run: { experimentId: string; runId: string; total: number }) => void,
) {
  const { experiment, definition } = await requirePlatformExperiment(deps, scope.projectId, rawSlug);
  const def = definition.definition;
  const b = body ?? {};
  if (b.data && b.dataset_id) throw badRequest('validation_error', 'body.dataset_id: send data or dataset_id, not both', 'body.dataset_id');

  let entries: Record<string, unknown>[];
  let dataset: RunPlan['dataset'] = null;
  if (b.data) entries = b.data;
  else {
    const ref = b.dataset_id ? { id: b.dataset_id, version: null, field: 'body.dataset_id' } : def.dataset ? { ...def.dataset, field: 'dataset' } : null;
    if (!ref) throw badRequest('validation_error', `body.data: experiment "${experiment.slug}" has no dataset; send data or dataset_id`, 'body.data');
    const found = await datasetForRuns(deps.db.orm, scope.projectId, ref.id, ref.field);
    const version = ref.version ?? found.version;
    entries = await entriesAsOf(deps.db.orm, found.id, version);
    dataset = { id: found.id, version };
  }
  if (b.parameters) entries = entries.map((e) => ({ ...e, ...b.parameters }));
  let rows: RunRow[] = entries.map((entry, index) => ({ index, entry }));
  if (b.row_indices) {
    for (const [i, n] of b.row_indices.entries()) {
      if (n >= rows.length) throw badRequest('validation_error', `body.row_indices.${i}: row ${n} is out of range (the run has ${rows.length} rows: 0..${rows.length - 1})`, `body.row_indices.${i}`);
    }
    const all = rows;
    rows = [...new Set(b.row_indices)].sort((x, y) => x - y).map((n) => all[n]);
  }
  if (!rows.length) throw badRequest('validation_error', `body.data: no rows to run (the dataset is empty)`, 'body.data');
  // The run keeps its rows as the project's privacy settings store them: what it sends the targets too.
  const redaction = await runRedaction(deps, scope.projectId);
  rows = rows.map((r) => ({ ...r, entry: redaction.entry(r.entry) }));

  // Pin what "the newest version" or a tag means now, so a resumed run runs the same prompts.
  // The run row records the model each prompt target runs with (its own, else its version's).
  const targets: RunPlan['targets'] = [];
  const models = new Map<string, string>();
  for (const t of def.targets) {
    if (t.type !== 'prompt') targets.push(t);
    else {
      const prompt = await deps.prompts.get(scope, t.prompt, t.version !== undefined ? { version: t.version } : { tag: t.tag });
      targets.push({ ...t, version: prompt.version, tag: undefined });
      models.set(t.id, t.model ?? prompt.model);
    }
  }
  // Custom evaluators likewise: the version run is the one current now, recorded in the plan.
  const evaluators: RunPlan['evaluators'] = [];
  for (const [i, e] of def.evaluators.entries()) {
    if (!e.evaluator.startsWith('custom/')) {
      evaluators.push({ ...e, version: null });
      continue;
    }
    const found = await deps.evaluators.describe(scope, e.evaluator, e.settings).catch((err: unknown) => {
      if (err instanceof AppError && err.status === 400) throw badRequest(err.code, `evaluators.${i}.${err.message}`, `evaluators.${i}.${err.field ?? 'evaluator'}`);
      throw err;
    });
    evaluators.push({ ...e, settings: { ...e.settings, version: found.version }, version: found.version });
  }
  const plan: RunPlan = {
    slug: experiment.slug,
    targets,
    evaluators,
    concurrency: b.concurrency ?? def.concurrency,
    repetitions: b.repetitions ?? def.repetitions ?? 1,
    dataset,
    userId: scope.userId,
    origin,
  };
  return launchRun(deps, runner, scope, experiment, plan, rows, models, beforeStart);
}

/**
 * Creates a run of `plan` over `rows` (the run, its rows and its job in one transaction, with
 * the started event) and wakes the runner: a definition's run (startRun) or a judge's (judge-run.ts).
 * `models`: per prompt target, the model it runs with.
 */
export async function launchRun(
  deps: PlatformDeps,
  runner: PlatformRunner,
  scope: PlatformScope,
  experiment: { id: string; slug: string; name: string | null },
  plan: RunPlan,
  rows: RunRow[],
  models: Map<string, string>,
  beforeStart?: (run: { experimentId: string; runId: string; total: number }) => void,
) {
  const runId = newId('run');
  const total = rows.length * plan.targets.length * (plan.repetitions ?? 1);
  const now = deps.clock.now();
  await deps.db.orm.transaction(async (tx) => {
    await store.createRun(tx, {
      experimentId: experiment.id,
      runId,
      projectId: scope.projectId,
      targets: plan.targets.map((t) => ({
        id: t.id,
        name: t.name,
        type: t.type === 'prompt' ? 'prompt' : t.type === 'evaluator' ? 'evaluator' : 'agent',
        promptId: t.type === 'prompt' ? t.prompt : null,
        promptVersion: t.type === 'prompt' ? (t.version ?? null) : null,
        agentId: null,
        evaluatorId: t.type === 'evaluator' ? t.evaluator : null,
        model: models.get(t.id) ?? null,
        metadata: targetMetadata(t),
      })),
      total,
      now: now.getTime(),
    });
    await store.insertPlatformRun(tx, { experimentId: experiment.id, runId, projectId: scope.projectId, organizationId: scope.organizationId, plan, rows });
    await enqueueJobs(tx, [{ queue: RUN_QUEUE, payload: { experimentId: experiment.id, runId }, runAt: now.getTime(), maxAttempts: RUN_JOB_ATTEMPTS }], now.getTime());
    await emitEvents(
      tx,
      [
        {
          organizationId: scope.organizationId,
          projectId: scope.projectId,
          type: 'experiment_run.started',
          data: { experiment: { id: experiment.id, slug: experiment.slug, name: experiment.name }, run: { runId, createdAt: now.getTime() } },
        },
      ],
      now,
    );
  });
  beforeStart?.({ experimentId: experiment.id, runId, total });
  runner.kick();
  const base = (deps.publicUrl ?? plan.origin).replace(/\/$/, '');
  return {
    experimentId: experiment.id,
    answer: { runId, status: 'running' as const, total, runUrl: `${base}${experimentPath(scope.projectId, experiment.slug)}?runId=${encodeURIComponent(runId)}` },
  };
}

/** What a run's target list shows of a target beyond its name: an agent's URL, a judge's pinned version. */
function targetMetadata(t: RunPlan['targets'][number]): Record<string, string | number | boolean> | null {
  if (t.type === 'http') return { url: t.url };
  if (t.type === 'evaluator' && typeof t.settings.version === 'number') return { version: t.settings.version };
  return null;
}

/** POST /api/experiments/{slug}/runs/{runId}/stop: ends a running platform run (cells in flight are dropped). */
export async function stopRun(deps: PlatformDeps, runner: PlatformRunner, scope: PlatformScope, rawSlug: string, runId: string) {
  const experiment = await store.findExperimentBySlug(deps.db.orm, scope.projectId, slugify(rawSlug));
  if (!experiment) throw notFound('experiment_not_found', `no experiment "${rawSlug}" in this project`);
  const now = deps.clock.now();
  const status = await deps.db.orm.transaction(async (tx) => {
    const run = await store.findPlatformRun(tx, experiment.id, runId, true);
    if (!run) throw notFound('run_not_found', `no platform run ${runId} in experiment ${experiment.slug}`);
    if (run.status !== 'running') return run.status;
    const ended = await store.endRun(tx, experiment.id, runId, { stoppedAt: now.getTime() }, now.getTime());
    await store.setPlatformRunStatus(tx, experiment.id, runId, 'stopped');
    if (ended) await emitEvents(tx, [finishedEvent(scope, experiment, ended, 'stopped')], now);
    return 'stopped' as const;
  });
  runner.stopLocal(experiment.id, runId);
  return { runId, status };
}
