import { AppError, badRequest, conflict } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { slugify } from '../../platform/slug.schema.ts';
import type { ExperimentsContext } from './context.ts';
import type { JudgeTarget } from './define-experiment.ts';
import type { PlatformDeps, PlatformScope } from './platform-context.ts';
import { resolveRun } from './read-runs.ts';
import { runRedaction } from './redaction.ts';
import type { PlatformRunner, RunPlan } from './run-cells.ts';
import { launchRun } from './start-run.ts';
import * as store from './store.ts';

/** Judge calls of a judge run in flight at once. */
const JUDGE_RUN_CONCURRENCY = 4;

export interface JudgeRunInput {
  /** the experiment the run belongs to: created on the first run (a platform-run experiment without a saved setup) */
  slug: string;
  name: string;
  /** the judge: a catalogue path or custom/<slug>, and a custom judge's version (null: the newest now) */
  evaluator: string;
  version: number | null;
  /** the rows: each judge data key is read from the column of the same name */
  rows: Record<string, unknown>[];
  /** the column holding the id of the trace each row judges: the row links to it */
  traceColumn?: string;
  /** the request field named when the judge cannot run or the slug is taken */
  field: string;
}

/**
 * An experiment whose target is a judge (judge alignment's "improving a judge"): the judge,
 * its version pinned now, runs over the rows as a platform run does (the runner's queue, its
 * rows, summaries and pages), each row's answer the cell's output. A slug already used by an
 * SDK-logged experiment or a saved setup is a 409 naming `field`.
 */
export async function startJudgeRun(deps: PlatformDeps, runner: PlatformRunner, scope: PlatformScope, input: JudgeRunInput, origin: string) {
  const slug = slugify(input.slug);
  const judge = await deps.evaluators.describe(scope, input.evaluator, input.version === null ? {} : { version: input.version }).catch((err: unknown) => {
    if (err instanceof AppError && err.status === 400) throw badRequest(err.code, `${input.field}: ${err.message}`, input.field);
    throw err;
  });
  const experiment = await deps.db.orm.transaction(async (tx) => {
    const found = await store.insertPlatformExperiment(tx, { id: newId('experiment'), projectId: scope.projectId, slug, name: input.name, now: deps.clock.now() });
    if (found.type !== 'EVALUATIONS_V3' || (await store.findDefinition(tx, scope.projectId, found.id))) {
      throw conflict('slug_conflict', `${input.field}: experiment "${slug}" is one of the project's own (${found.type === 'EVALUATIONS_V3' ? 'with a saved setup' : 'logged by an SDK'}); rename it to run this judge there`, input.field);
    }
    return found;
  });
  const target: JudgeTarget = {
    id: 'judge',
    name: judge.version === null ? judge.name : `${judge.name} v${judge.version}`,
    type: 'evaluator',
    evaluator: judge.path,
    settings: judge.version === null ? {} : { version: judge.version },
    mapping: Object.fromEntries(judge.dataKeys.map((k) => [k, `dataset.${k}`])),
    ...(input.traceColumn ? { trace: `dataset.${input.traceColumn}` } : {}),
  };
  const plan: RunPlan = { slug, targets: [target], evaluators: [], concurrency: JUDGE_RUN_CONCURRENCY, repetitions: 1, dataset: null, userId: scope.userId, origin };
  const redaction = await runRedaction(deps, scope.projectId);
  const rows = input.rows.map((entry, index) => ({ index, entry: redaction.entry(entry) }));
  const { answer } = await launchRun(deps, runner, scope, experiment, plan, rows, new Map());
  return { experimentSlug: slug, runId: answer.runId, runUrl: answer.runUrl };
}

/**
 * Where a judge run is (running, completed or stopped) and, once it ended, each row's answer:
 * the judge's output (status, passed, score, label, details) or the cell's error.
 */
export async function judgeRunAnswers(ctx: ExperimentsContext, projectId: string, slug: string, runId: string) {
  const run = await resolveRun(ctx, projectId, runId, slug);
  const status = run.stoppedAt !== null ? ('stopped' as const) : run.finishedAt !== null ? ('completed' as const) : ('running' as const);
  if (status === 'running') return { status, answers: [] };
  const { dataset } = await store.readResults(ctx.db.orm, run.experimentId, run.runId);
  return {
    status,
    answers: dataset.map((r) => ({ index: r.idx, output: (r.predicted as { output?: unknown } | null)?.output ?? null, error: r.error })),
  };
}
