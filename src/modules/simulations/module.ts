import type { FastifyInstance } from 'fastify';
import type { Executor } from '../../db/index.ts';
import type { Experiments } from '../experiments/index.ts';
import type { ModelGateway } from '../model-providers/index.ts';
import type { SimulationsContext } from './context.ts';
import { simulationRoutes } from './routes.ts';
import { SimulationRunner } from './run-scenario.ts';
import * as store from './store.ts';

/** What the simulations module offers the app: project deletion. */
export interface Simulations {
  deleteProject(projectId: string, db: Executor): Promise<void>;
}

/** What the simulations module is given (app.ts): the modules server runs call, privacy's redaction, and projects' deletion. */
export interface SimulationsPorts extends Pick<SimulationsContext, 'db' | 'clock'> {
  /** Privacy at ingest (the privacy module): the project's redaction of what scenarios store. */
  privacy: { redactorFor: NonNullable<SimulationsContext['redactor']> };
  /** The one owner of calls to models (the model providers module). */
  models: Pick<ModelGateway, 'providersFor' | 'complete' | 'callTool'>;
  /** Prompts, HTTP agents and their sealed headers as experiments run them; server runs are jobs of the experiments' platform-run queue. */
  experiments: Pick<Experiments, 'deps' | 'queue' | 'runner'>;
  /** The organizations module: a deleted project's scenarios and runs go in its transaction. */
  projects: { onProjectDeleted(listener: (tx: Executor, projectId: string) => Promise<void>): void };
  publicUrl: string | null;
}

/** The simulations module's context over the ports other modules offer. */
function simulationsContext({ db, clock, privacy, models, experiments, publicUrl }: SimulationsPorts): SimulationsContext {
  return {
    db,
    clock,
    redactor: (projectId, path) => privacy.redactorFor(projectId, path),
    server: {
      models: {
        check: async (scope, model, field) => void (await models.providersFor(scope, model, field)),
        chat: async (scope, model, messages, signal) => (await models.complete(scope, model, messages, signal)).text,
        callTool: (scope, model, call, signal) => models.callTool(scope, model, call, signal),
      },
      prompts: {
        version: async (scope, ref, version) => (await experiments.deps.prompts.get(scope, ref, version !== undefined ? { version } : {})).version,
        prepare: (scope, ref, select) => experiments.deps.prompts.prepare(scope, ref, select),
      },
      agents: experiments.deps,
      headers: experiments.deps.targetHeaders,
      // Server-run simulations are jobs of the experiments' platform-run queue: claimed, leased and resumed as their runs are.
      queue: experiments.queue,
      kick: () => experiments.runner.kick(),
      publicUrl,
    },
  };
}

/** The simulations module's one entry: its routes, the runner of server-run scenarios (jobs of the queue it is given), what goes with a deleted project, and what it offers the app. */
export function registerSimulations(app: FastifyInstance, ports: SimulationsPorts): Simulations {
  const ctx = simulationsContext(ports);
  simulationRoutes(app, ctx);
  const runner = new SimulationRunner(ctx);
  // Before the queue's runner waits for its jobs: runs in flight stop and are taken up after the restart.
  app.addHook('preClose', (done) => {
    runner.close();
    done();
  });
  const simulations: Simulations = {
    deleteProject: async (projectId, db) => {
      await store.deleteProjectRuns(db, projectId);
      await store.deleteProjectScenarios(db, projectId);
    },
  };
  ports.projects.onProjectDeleted((tx, projectId) => simulations.deleteProject(projectId, tx));
  return simulations;
}
