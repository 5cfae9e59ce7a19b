import { AppError, badRequest, notFound } from '../../../platform/errors.ts';
import { closestEvaluatorNames, findEvaluator } from '../catalogue.ts';
import type { EvaluationScope, EvaluatorsContext } from '../context.ts';
import { resolveCustom, type ResolvedCustom } from '../custom/manage-custom.ts';
import { parseInput } from '../runner.ts';
import type { EvaluatorDefinition } from '../types.ts';

/** A built-in evaluator by its path (or a LangWatch alias): 404 naming the closest ones. */
export function builtInEvaluator(path: string): EvaluatorDefinition {
  const definition = findEvaluator(path);
  if (!definition) {
    const closest = closestEvaluatorNames(path);
    throw new AppError(404, 'evaluator_not_found', `no evaluator ${path}; the closest are ${closest.join(', ')} (GET /api/evaluations lists them all)`, { meta: { closest } });
  }
  return definition;
}

/**
 * A custom evaluator's version to run: settings.version, else the newest. No such evaluator:
 * 404, or a 400 naming `field` when it is being saved for later (a monitor).
 */
export async function customEvaluator(ctx: EvaluatorsContext, scope: EvaluationScope, path: string, settings: unknown, field: string | null): Promise<ResolvedCustom> {
  const slug = path.slice('custom/'.length);
  const pinned = (settings as { version?: unknown } | null | undefined)?.version;
  const found = await resolveCustom(ctx, scope.projectId, slug, typeof pinned === 'number' && Number.isInteger(pinned) && pinned > 0 ? pinned : undefined);
  if (found) return found;
  if (field) throw badRequest('unknown_evaluator', `${field}: no evaluator ${path} in this project; GET /api/evaluations lists them`, field);
  throw notFound('evaluator_not_found', `no evaluator ${path} in this project; GET /api/evaluations lists the available ones`);
}

/** An LLM judge's provider, from its settings.model. */
export async function judgeProviders(ctx: EvaluatorsContext, scope: EvaluationScope, definition: EvaluatorDefinition, settings: unknown) {
  const model = (settings as { model?: unknown } | null)?.model;
  if (!definition.usesLlm || typeof model !== 'string') return undefined;
  return ctx.models.providersFor(scope, model, 'settings.model');
}

/**
 * What running `path` takes, for the evaluate route, monitors and experiment runs alike: the
 * evaluator (a custom one at settings.version, else its newest), the parsed data and
 * settings, and the judge's provider (the project's, else the environment's).
 */
export async function prepareRun(ctx: EvaluatorsContext, scope: EvaluationScope, path: string, data: unknown, settings: unknown) {
  const custom = path.startsWith('custom/') ? await customEvaluator(ctx, scope, path, settings, null) : null;
  const definition = custom?.definition ?? builtInEvaluator(path);
  const input = parseInput(definition, data, settings);
  const providers = custom ? await ctx.models.providersFor(scope, custom.config.model, 'model') : await judgeProviders(ctx, scope, definition, input.settings);
  return { custom, definition, input, providers };
}

export type PreparedRun = Awaited<ReturnType<typeof prepareRun>>;
