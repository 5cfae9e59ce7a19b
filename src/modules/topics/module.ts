import type { Executor } from '../../db/index.ts';
import type { SpyglassModule } from '../../platform/module.ts';
import type { ModelGateway } from '../model-providers/index.ts';
import type { TraceExtension, Traces } from '../traces/index.ts';
import type { TopicsContext } from './context.ts';
import { runTopicRounds } from './rounds.ts';
import { topicRoutes } from './routes.ts';
import * as store from './store.ts';

/** How often each process embeds new traces and checks whether topics are due. */
export const TOPICS_POLL_MS = 30_000;

/** What the topics module offers the app: a round on demand (tests, operators), the filter and grouping, deletions. */
export interface Topics {
  runRounds(projectId?: string): Promise<{ embedded: number; built: number }>;
  topicOfTracesRelation: typeof store.topicOfTracesRelation;
  inTopicsCondition: typeof store.inTopicsCondition;
  deleteTraces(db: Executor, projectId: string, traceIds: readonly string[]): Promise<void>;
  deleteProject(projectId: string, db: Executor): Promise<void>;
}

/** A period of analytics, grouped by topic (what topics read of analytics: declared here, analytics is not imported). */
type TopicPeriod = { startDate: number; endDate: number; groupBy: 'topic' };

/** What the topics module is given (app.ts): models to embed and name with, traces' inputs, analytics by topic, projects' deletion. */
export interface TopicsPorts extends Pick<TopicsContext, 'db' | 'clock'> {
  /** The one owner of calls to models (the model providers module). */
  models: Pick<ModelGateway, 'embed' | 'providersFor' | 'complete'>;
  traces: Pick<Traces, 'inputs'>;
  analytics: {
    periodSums(projectId: string, q: TopicPeriod): ReturnType<TopicsContext['topicSums']>;
    periodEvaluations(projectId: string, q: TopicPeriod & { evaluator: null; limit: number }): Promise<{ g: string | null; name: string; passed: boolean | null }[]>;
  };
  /** The organizations module: a deleted project's topics go in its transaction. */
  projects: { onProjectDeleted(listener: (tx: Executor, projectId: string) => Promise<void>): void };
}

/** The topics module over the ports other modules offer: its context, what it offers, and what goes with a deleted project. */
export function buildTopics({ models, traces, analytics, projects, ...rest }: TopicsPorts): { ctx: TopicsContext; topics: Topics } {
  const ctx: TopicsContext = {
    ...rest,
    embed: (scope, model, texts, field) => models.embed(scope, model, texts, field),
    checkProvider: async (scope, model, field) => void (await models.providersFor(scope, model, field)),
    complete: async (scope, model, prompt) => (await models.complete(scope, model, [{ role: 'user', content: prompt }])).text,
    traceInputs: (projectId, pick, limit, order) => traces.inputs(projectId, pick, limit, order),
    topicSums: (projectId, range) => analytics.periodSums(projectId, { ...range, groupBy: 'topic' }),
    topicVerdicts: async (projectId, range) =>
      (await analytics.periodEvaluations(projectId, { ...range, groupBy: 'topic', evaluator: null, limit: 200_000 })).map((r) => ({ g: r.g, evaluator: r.name, passed: r.passed })),
  };
  const topics = buildTopicsModule(ctx);
  projects.onProjectDeleted((tx, projectId) => topics.deleteProject(projectId, tx));
  return { ctx, topics };
}

export function buildTopicsModule(ctx: TopicsContext): Topics {
  // One round at a time in a process: a round asked for on demand waits for the scheduled one
  // in flight (which may hold a build's claim) instead of finding the build taken and skipping.
  let previous: Promise<unknown> = Promise.resolve();
  return {
    runRounds: (projectId) => {
      const round = previous.then(() => runTopicRounds(ctx, projectId));
      previous = round.catch(() => undefined);
      return round;
    },
    topicOfTracesRelation: store.topicOfTracesRelation,
    inTopicsCondition: store.inTopicsCondition,
    deleteTraces: store.deleteTraces,
    deleteProject: (projectId, db) => store.deleteProject(db, projectId),
  };
}

/** The topics module's one entry: its routes and its schedule (every process; a build is claimed once). */
export const topicsModule: SpyglassModule<{ topics: { ctx: TopicsContext; topics: Topics } }> = {
  name: 'topics',
  register: ({ http, scheduler }, { topics: { ctx, topics } }) => {
    topicRoutes(http, ctx);
    scheduler.every({ name: 'topics', intervalMs: TOPICS_POLL_MS, once: false, run: () => topics.runRounds() });
  },
};

/** What topics add to traces: the `topic` filter; a deleted trace leaves its topics. */
export const topicsTraceExtension: TraceExtension = {
  filterConditions: { topic: store.inTopicsCondition },
  onTracesDeleted: (tx, projectId, traceIds) => store.deleteTraces(tx, projectId, traceIds),
};
