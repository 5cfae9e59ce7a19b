import type { FastifyInstance } from 'fastify';
import type { PreparedPromptRun, PromptScope, PromptsContext, VersionSelection } from './context.ts';
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

export function buildPrompts(ctx: PromptsContext): Prompts {
  return { ctx, get: (scope, ref, select) => getPrompt(ctx, scope, ref, select), prepareRuns: (scope, ref, select) => prepareRuns(ctx, scope, ref, select) };
}

/** The prompts module's one entry: its routes. */
export function registerPrompts(app: FastifyInstance, prompts: Prompts): void {
  promptRoutes(app, prompts.ctx);
}
