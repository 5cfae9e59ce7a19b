import type { FastifyInstance } from 'fastify';
import type { Executor } from '../../db/index.ts';
import type { SimulationsContext } from './context.ts';
import { simulationRoutes } from './routes.ts';
import * as store from './store.ts';

/** What the simulations module offers the app: project deletion. */
export interface Simulations {
  deleteProject(projectId: string, db: Executor): Promise<void>;
}

/** The simulations module's one entry: its routes, and what it offers the app. */
export function registerSimulations(app: FastifyInstance, ctx: SimulationsContext): Simulations {
  simulationRoutes(app, ctx);
  return { deleteProject: (projectId, db) => store.deleteProjectRuns(db, projectId) };
}
