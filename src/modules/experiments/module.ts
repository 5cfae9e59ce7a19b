import type { SpyglassModule } from '../../platform/module.ts';
import type { Keyring } from '../../platform/crypto.ts';
import { JobQueue } from '../../platform/jobs/index.ts';
import type { Metrics } from '../../platform/metrics.ts';
import { scoreSummariesByTrace } from '../annotations/index.ts';
import { describeForRuns, runDetached, type EvaluatorsContext } from '../evaluators/index.ts';
import type { Prompts } from '../prompts/index.ts';
import type { Traces } from '../traces/index.ts';
import { judgeRunAnswers, startJudgeRun, type JudgeRunInput } from './judge-run.ts';
import type { PlatformDeps, PlatformScope } from './platform-context.ts';
import { PlatformRunner, RUN_LEASE_MS } from './run-cells.ts';
import { experimentRoutes } from './routes.ts';
import { TargetHeaders } from './target-headers.ts';

/** What the experiments module is given (app.ts): the modules its platform runs call, and the installation's keyring. */
export interface ExperimentsPorts extends Pick<PlatformDeps, 'db' | 'clock' | 'publicUrl'> {
  logger: { error(obj: unknown, msg: string): void };
  metrics: Metrics;
  /** Seals HTTP targets' headers. */
  keyring: Keyring;
  /** A prompt version read, and prepared for a run's cells. */
  prompts: Pick<Prompts, 'get' | 'prepareRuns'>;
  /** Evaluators described for a run, and run without storing. */
  evaluations: EvaluatorsContext;
  /** Where the calls of prompt and judge targets are recorded as traces. */
  traces: Pick<Traces, 'ingest'>;
  /** Privacy at ingest (the privacy module): the project's redaction of what runs record. */
  privacy: { redactorFor: NonNullable<PlatformDeps['redactor']> };
}

/** What the experiments module offers: its platform runs (their context, runner and queue), and judge runs for judge alignment. */
export interface Experiments {
  deps: PlatformDeps;
  runner: PlatformRunner;
  /** A queue of its own: a run takes minutes, and must not hold back monitor or import jobs. */
  queue: JobQueue;
  startJudgeRun(scope: PlatformScope, input: JudgeRunInput, origin: string): ReturnType<typeof startJudgeRun>;
  judgeRunAnswers(projectId: string, slug: string, runId: string): ReturnType<typeof judgeRunAnswers>;
}

export function buildExperiments(ports: ExperimentsPorts): Experiments {
  const { prompts, evaluations, traces } = ports;
  const deps: PlatformDeps = {
    db: ports.db,
    clock: ports.clock,
    publicUrl: ports.publicUrl,
    fetch,
    retry: { attempts: 3, baseMs: 500, maxRetryAfterMs: 60_000 },
    prompts: {
      get: async (scope, ref, select) => {
        const p = await prompts.get(scope, ref, select);
        return { id: p.id, handle: p.handle, version: p.version, model: p.model, inputs: p.inputs.map((i) => i.identifier) };
      },
      prepare: (scope, ref, select) => prompts.prepareRuns(scope, ref, select),
    },
    evaluators: {
      describe: (scope, path, settings) => describeForRuns(evaluations, scope, path, settings),
      run: (scope, path, data, settings, signal) => runDetached(evaluations, scope, path, data, settings, signal),
    },
    record: (scope, spans) => traces.ingest(scope.organizationId, scope.projectId, spans, 'experiment_runs'),
    // People's scores of the traces a run recorded (the annotations module's).
    traceScores: (projectId, traceIds) => scoreSummariesByTrace(ports.db.orm, projectId, traceIds),
    targetHeaders: new TargetHeaders(ports.keyring),
    redactor: (projectId, path) => ports.privacy.redactorFor(projectId, path),
  };
  const queue = new JobQueue(ports.db, ports.clock, ports.metrics, RUN_LEASE_MS);
  const runner = new PlatformRunner(deps, queue, ports.logger);
  return {
    deps,
    runner,
    queue,
    startJudgeRun: (scope, input, origin) => startJudgeRun(deps, runner, scope, input, origin),
    judgeRunAnswers: (projectId, slug, runId) => judgeRunAnswers(deps, projectId, slug, runId),
  };
}

/** The experiments module's one entry: its routes, and its runner polling the run queue while the app is up. */
export const experimentsModule: SpyglassModule<{ experiments: Experiments }> = {
  name: 'experiments',
  register: ({ http }, { experiments }) => {
    experimentRoutes(http, experiments);
    experiments.runner.attach(http);
  },
};
