import { computeCost, estimateTokens } from '../../traces/index.ts';
import type { EvaluationScope, EvaluatorsContext } from '../context.ts';
import { renderTemplate } from '../custom/definition.ts';
import { splitModel } from '../llm/provider.ts';
import { parseSettings } from '../runner.ts';
import { builtInEvaluator, customEvaluator } from './resolve-evaluator.ts';

/** A judge's answer (its short reasoning and verdict), as the cost estimate assumes it. */
const ESTIMATED_ANSWER_TOKENS = 150;
/** A built-in judge's own instructions around the data, as the cost estimate assumes them. */
const BUILT_IN_INSTRUCTION_TOKENS = 400;

/** What running an evaluator once per trace would cost (estimateCost). */
export interface CostEstimate {
  usesLlm: boolean;
  model: string | null;
  promptTokensPerTrace: number;
  answerTokensPerTrace: number;
  /** null: the model is not in the price table. */
  costPerTrace: number | null;
  currency: string;
}

/**
 * What running `path` once per trace would cost, estimated from `samples` (the evaluation data
 * of a few of the traces): the prompt's tokens counted with the model's tokenizer (a custom
 * judge's rendered template; a built-in judge's data plus its instructions), an assumed
 * answer of ESTIMATED_ANSWER_TOKENS, priced by the price table. Evaluators without an LLM cost 0.
 */
export async function estimateCost(ctx: EvaluatorsContext, scope: EvaluationScope, path: string, settings: unknown, samples: Record<string, unknown>[]): Promise<CostEstimate> {
  const custom = path.startsWith('custom/') ? await customEvaluator(ctx, scope, path, settings, 'evaluator') : null;
  const definition = custom?.definition ?? builtInEvaluator(path);
  if (!definition.usesLlm) return { usesLlm: false, model: null, promptTokensPerTrace: 0, answerTokensPerTrace: 0, costPerTrace: 0, currency: 'USD' };
  const model = custom?.config.model ?? ((parseSettings(definition, settings) as { model?: unknown }).model as string | undefined) ?? null;
  if (!model) return { usesLlm: true, model: null, promptTokensPerTrace: 0, answerTokensPerTrace: 0, costPerTrace: null, currency: 'USD' };
  const { provider, modelId } = splitModel(model);
  const stored = (await ctx.models.providersFor(scope, model, 'evaluator'))?.get(provider);
  const vendor = stored ? (stored.kind === 'anthropic' ? 'anthropic' : 'openai') : provider;
  const promptOf = (data: Record<string, unknown>) => (custom ? renderTemplate(custom.config.prompt, data) : JSON.stringify(data));
  const counted = samples.map((d) => estimateTokens(promptOf(d), modelId) + (custom ? 0 : BUILT_IN_INSTRUCTION_TOKENS));
  const promptTokens = counted.length ? Math.ceil(counted.reduce((a, b) => a + b, 0) / counted.length) : 0;
  const cost = computeCost({ model: modelId, vendor, promptTokens, completionTokens: ESTIMATED_ANSWER_TOKENS });
  return { usesLlm: true, model, promptTokensPerTrace: promptTokens, answerTokensPerTrace: ESTIMATED_ANSWER_TOKENS, costPerTrace: cost?.amount ?? null, currency: cost?.currency ?? 'USD' };
}
