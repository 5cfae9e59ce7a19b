import type { FastifyInstance } from 'fastify';
import type { ThreadsContext } from './context.ts';
import { threadRoutes } from './routes.ts';
import { evaluateThread, type ThreadMonitorLike } from './use-cases/evaluate-thread.ts';

/** What the threads module offers the app: evaluating a thread as a whole (thread monitors' jobs). */
export interface Threads {
  evaluate(monitor: ThreadMonitorLike, threadId: string): Promise<{ changedSince: boolean }>;
}

/** The threads module's one entry: its routes, and what it offers the app. */
export function registerThreads(app: FastifyInstance, ctx: ThreadsContext): Threads {
  threadRoutes(app, ctx);
  return threads(ctx);
}

/** The module's offer without its routes (the services are built before the HTTP app). */
export function threads(ctx: ThreadsContext): Threads {
  return { evaluate: (monitor, threadId) => evaluateThread(ctx, monitor, threadId) };
}
