import { badRequest } from '../../../platform/errors.ts';
import { catalogue, closestEvaluatorNames, findEvaluator } from '../catalogue.ts';
import type { EvaluationScope, EvaluatorsContext } from '../context.ts';
import { THREAD_VARIABLES, TRACE_VARIABLES, variablesOf } from '../custom/definition.ts';
import { parseSettings } from '../runner.ts';
import { customEvaluator, judgeProviders } from './resolve-evaluator.ts';

/** An evaluator as a saved definition reads it: its path, name, the data keys it reads, and a custom one's version. */
export interface EvaluatorForRuns {
  path: string;
  name: string;
  dataKeys: string[];
  requiredKeys: string[];
  /** A custom evaluator's version (settings.version, else its newest); null for built-in ones. */
  version: number | null;
}

/**
 * An evaluator path and settings saved for later runs (monitors, experiment definitions):
 * what it is and what data it reads; 400 naming `evaluator` or `settings.<key>` (unknown
 * evaluator, refused settings, a judge whose provider is set neither in the app nor in the
 * environment). A custom evaluator answers the version that would run.
 */
export async function describeForRuns(ctx: EvaluatorsContext, scope: EvaluationScope, path: string, settings: unknown): Promise<EvaluatorForRuns> {
  if (path.startsWith('custom/')) {
    const custom = await customEvaluator(ctx, scope, path, settings, 'evaluator');
    parseSettings(custom.definition, settings);
    await ctx.models.providersFor(scope, custom.config.model, 'evaluator');
    const keys = variablesOf(custom.config.prompt);
    return { path: custom.definition.path, name: custom.definition.name, dataKeys: keys, requiredKeys: keys, version: custom.version };
  }
  const definition = findEvaluator(path);
  const entry = definition && catalogue().find((e) => e.path === definition.path);
  if (!definition || !entry) throw badRequest('unknown_evaluator', `evaluator: no evaluator ${path}; the closest are ${closestEvaluatorNames(path).join(', ')} (GET /api/evaluations lists them)`, 'evaluator');
  // Saving one for later runs would only store errors: refuse it now, saying what to use instead.
  if (definition.notOffered) throw badRequest('evaluator_not_offered', `evaluator: ${definition.notOffered}`, 'evaluator');
  await judgeProviders(ctx, scope, definition, parseSettings(definition, settings));
  const schema = entry.data as { properties?: Record<string, unknown>; required?: string[] };
  return { path: definition.path, name: definition.name, dataKeys: Object.keys(schema.properties ?? {}), requiredKeys: schema.required ?? [], version: null };
}

/** An evaluator path and settings to save for a monitor: as describeForRuns, and a custom template may name only what its unit (traces or threads) gives. */
export async function checkMonitorEvaluator(ctx: EvaluatorsContext, scope: EvaluationScope, path: string, settings: unknown, unit: 'trace' | 'thread' = 'trace'): Promise<void> {
  const found = await describeForRuns(ctx, scope, path, settings);
  if (found.version === null) return;
  const given = unit === 'thread' ? THREAD_VARIABLES : TRACE_VARIABLES;
  const lacking = found.dataKeys.filter((v) => !given.includes(v));
  if (lacking.length) {
    throw badRequest(
      'template_variables',
      `evaluator: the template of ${path} (version ${found.version}) names ${lacking.map((v) => `{{${v}}}`).join(', ')}, which ${unit}s do not give (they give ${given.join(', ')})`,
      'evaluator',
    );
  }
}
