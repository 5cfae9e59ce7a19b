import type { FastifyInstance } from 'fastify';
import type { Executor } from '../../db/index.ts';
import type { SimulationsContext } from './context.ts';
import { simulationRoutes } from './routes.ts';
import { SimulationRunner } from './run-scenario.ts';
import * as store from './store.ts';

/** What the simulations module offers the app: project deletion. */
export interface Simulations {
  deleteProject(projectId: string, db: Executor): Promise<void>;
}

/** The simulations module's one entry: its routes, the runner of server-run scenarios (jobs of the queue it is given), and what it offers the app. */
export function registerSimulations(app: FastifyInstance, ctx: SimulationsContext): Simulations {
  simulationRoutes(app, ctx);
  const runner = new SimulationRunner(ctx);
  // Before the queue's runner waits for its jobs: runs in flight stop and are taken up after the restart.
  app.addHook('preClose', (done) => {
    runner.close();
    done();
  });
  return {
    deleteProject: async (projectId, db) => {
      await store.deleteProjectRuns(db, projectId);
      await store.deleteProjectScenarios(db, projectId);
    },
  };
}
