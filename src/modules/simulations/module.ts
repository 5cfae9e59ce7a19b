import type { ModuleHost, SpyglassModule } from '../../platform/module.ts';
import type { Executor } from '../../db/index.ts';
import type { Experiments } from '../experiments/index.ts';
import type { ModelGateway } from '../model-providers/index.ts';
import type { SimulationsContext } from './context.ts';
import { simulationRoutes } from './routes.ts';
import { SimulationRunner } from './run-scenario.ts';
import * as store from './store.ts';

/** What the simulations module reads of the ports map: the modules server runs call, privacy's redaction, and projects' deletion. */
export interface SimulationsPorts {
  /** Privacy at ingest: the project's redaction of what scenarios store. */
  privacy: { privacy: { redactorFor: NonNullable<SimulationsContext['redactor']> } };
  /** The one owner of calls to models. */
  modelProviders: { gateway: Pick<ModelGateway, 'providersFor' | 'complete' | 'callTool'> };
  /** Prompts, HTTP agents and their sealed headers as experiments run them; server runs are jobs of the experiments' platform-run queue. */
  experiments: Pick<Experiments, 'deps' | 'queue' | 'runner'>;
  /** A deleted project's scenarios and runs go in its transaction. */
  organizations: { onProjectDeleted(listener: (tx: Executor, projectId: string) => Promise<void>): void };
}

/** The simulations module's context over the ports other modules offer. */
function simulationsContext({ db, clock, config }: ModuleHost, { privacy: { privacy }, modelProviders: { gateway: models }, experiments }: SimulationsPorts): SimulationsContext {
  const { publicUrl } = config;
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

/** The simulations module's one entry: its routes, the runner of server-run scenarios (jobs of the experiments' queue), and what goes with a deleted project. */
export const simulationsModule: SpyglassModule<SimulationsPorts> = {
  name: 'simulations',
  register: (host, ports) => {
    const ctx = simulationsContext(host, ports);
    simulationRoutes(host.http, ctx);
    const runner = new SimulationRunner(ctx);
    // Before the queue's runner waits for its jobs: runs in flight stop and are taken up after the restart.
    host.http.addHook('preClose', (done) => {
      runner.close();
      done();
    });
    ports.organizations.onProjectDeleted(async (tx, projectId) => {
      await store.deleteProjectRuns(tx, projectId);
      await store.deleteProjectScenarios(tx, projectId);
    });
  },
};
