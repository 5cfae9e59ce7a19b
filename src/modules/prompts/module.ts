import type { SpyglassModule } from '../../platform/module.ts';
import type { NormalizedSpan } from '../traces/index.ts';
import type { PreparedPromptRun, PromptRunner, PromptScope, PromptsContext, VersionSelection } from './context.ts';
import type { PromptView } from './presenters.ts';
import { getPrompt } from './read-prompts.ts';
import { promptRoutes } from './routes.ts';
import { prepareRuns } from './run-prompt.ts';

/** What the prompts module offers the others: a version read, and a version prepared for many runs (experiments, simulations). */
export interface Prompts {
  ctx: PromptsContext;
  get(scope: PromptScope, ref: string, select?: VersionSelection): Promise<PromptView>;
  prepareRuns(scope: PromptScope, ref: string, select: VersionSelection): Promise<PreparedPromptRun>;
}

/** What the prompts module is given: the model gateway a run calls, and the traces a run is recorded in. */
export interface PromptsPorts extends Pick<PromptsContext, 'db' | 'clock'> {
  models: Pick<PromptRunner, 'complete'>;
  traces: { ingest(organizationId: string, projectId: string, spans: NormalizedSpan[], path: 'playground'): Promise<unknown> };
}

export function buildPrompts({ models, traces, ...rest }: PromptsPorts): Prompts {
  const ctx: PromptsContext = {
    ...rest,
    runner: {
      complete: (scope, model, messages, signal, options) => models.complete(scope, model, messages, signal, options),
      record: async (scope, spans) => void (await traces.ingest(scope.organizationId, scope.projectId, spans, 'playground')),
    },
  };
  return { ctx, get: (scope, ref, select) => getPrompt(ctx, scope, ref, select), prepareRuns: (scope, ref, select) => prepareRuns(ctx, scope, ref, select) };
}

/** The prompts module's one entry: its routes. */
export const promptsModule: SpyglassModule<{ prompts: Prompts }> = {
  name: 'prompts',
  register: ({ http }, { prompts }) => promptRoutes(http, prompts.ctx),
};
