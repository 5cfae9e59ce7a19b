import type { FastifyInstance } from 'fastify';
import type { Executor } from '../../db/index.ts';
import type { Scheduler } from '../../platform/periodic.ts';
import type { TraceExtension } from '../traces/index.ts';
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

export function buildTopicsModule(ctx: TopicsContext): Topics {
  return {
    runRounds: (projectId) => runTopicRounds(ctx, projectId),
    topicOfTracesRelation: store.topicOfTracesRelation,
    inTopicsCondition: store.inTopicsCondition,
    deleteTraces: store.deleteTraces,
    deleteProject: (projectId, db) => store.deleteProject(db, projectId),
  };
}

/** The topics module's one entry: its routes and its schedule (every process; a build is claimed once). */
export function registerTopics(app: FastifyInstance, scheduler: Scheduler, ctx: TopicsContext, topics: Topics): void {
  topicRoutes(app, ctx);
  scheduler.every({ name: 'topics', intervalMs: TOPICS_POLL_MS, once: false, run: () => topics.runRounds() });
}

/** What topics add to traces: the `topic` filter; a deleted trace leaves its topics. */
export const topicsTraceExtension: TraceExtension = {
  filterConditions: { topic: store.inTopicsCondition },
  onTracesDeleted: (tx, projectId, traceIds) => store.deleteTraces(tx, projectId, traceIds),
};
