import type { SpyglassModule } from '../../platform/module.ts';
import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { scoredThreads, threadReviews, threadScoreSort, threadScoreSummaries } from '../annotations/index.ts';
import { describeForRuns, runDetached, type EvaluatorsContext } from '../evaluators/index.ts';
import type { Traces } from '../traces/index.ts';
import type { ThreadsContext } from './context.ts';
import { threadRoutes } from './routes.ts';
import { evaluateThread, type ThreadMonitorLike } from './use-cases/evaluate-thread.ts';

/** What the threads module offers the app: evaluating a thread as a whole (thread monitors' jobs). */
export interface Threads {
  evaluate(monitor: ThreadMonitorLike, threadId: string): Promise<{ changedSince: boolean }>;
}

/** The threads module's one entry: its routes. */
export const threadsModule: SpyglassModule<{ threads: ThreadsContext }> = {
  name: 'threads',
  register: ({ http }, { threads }) => threadRoutes(http, threads),
};

/** The module's offer without its routes (the services are built before the HTTP app). */
export function threads(ctx: ThreadsContext): Threads {
  return { evaluate: (monitor, threadId) => evaluateThread(ctx, monitor, threadId) };
}

/** The ports the threads module takes from the others: traces' search and contents, the evaluators' runs. */
export interface ThreadsPorts {
  db: Database;
  clock: Clock;
  traces: Pick<Traces, 'aggregates' | 'contents'>;
  evaluations: EvaluatorsContext;
}

/** The threads module's context over the ports other modules offer (people's reviews are the annotations module's). */
export function buildThreads(ports: ThreadsPorts): ThreadsContext {
  const { db, clock, traces, evaluations } = ports;
  return {
    db,
    clock,
    aggregateThreads: (db, q) => traces.aggregates.aggregateThreads(db, q),
    contents: (projectId, traceIds) => traces.contents(projectId, traceIds, ['tool']),
    runEvaluator: (scope, path, data, settings) => runDetached(evaluations, scope, path, data, settings),
    evaluatorVersion: async (scope, path, settings) => (await describeForRuns(evaluations, scope, path, settings)).version,
    reviewScores: (projectId, threadIds) => threadScoreSummaries(db, projectId, threadIds),
    reviewScoreFilter: (projectId, f, field) => scoredThreads(db, projectId, f, field),
    reviewScoreSort: (projectId, configId, field) => threadScoreSort(db, projectId, configId, field),
    reviews: (projectId, threadId) => threadReviews(db, projectId, threadId),
  };
}
