/**
 * The scaffolding every LLM judge shares: its settings (`model`, `max_tokens`), its place in
 * the catalogue (no fixed variables, the provider key of `settings.model`, costly), the skips
 * before the judge is called, and the result that carries the session's cost and report.
 * What a judge asks and how it reads the answer stay in its own file.
 */
import { z } from 'zod';
import type { EvaluationResult, EvaluatorContext, EvaluatorDefinition } from '../types.ts';
import { judgedDocument, usableContexts } from './judge-content.ts';
import { JudgeSession, maxTokensSetting, modelSetting, requiredEnvForModel, skipIfTooLong, type JudgeCall } from './provider.ts';

/**
 * The settings of every judge, with langevals' `max_tokens` default for it (and its default
 * model, when it names one of its own); `.extend` adds the rest.
 */
export function judgeSettings(maxTokens: number, defaultModel?: string) {
  const model = defaultModel ? modelSetting.unwrap().default(defaultModel).describe(modelSetting.description ?? '') : modelSetting;
  return z.object({ model, max_tokens: maxTokensSetting(maxTokens) });
}

/** The settings a judge's skips and calls read. */
export interface JudgeLimits {
  model: string;
  max_tokens: number;
}

/** A judge's definition: what every judge declares the same way is filled in. */
export function judgeEvaluator<D extends z.ZodType, S extends z.ZodType<{ model: string }>>(
  definition: Omit<EvaluatorDefinition<D, S>, 'requiredEnv' | 'requiredEnvFor' | 'isCostly'>,
): EvaluatorDefinition<D, S> {
  const { path, name, description, category, data, settings, isGuardrail, evaluate } = definition;
  return {
    path,
    name,
    description,
    category,
    data,
    settings,
    requiredEnv: [],
    requiredEnvFor: (s) => requiredEnvForModel(s.model),
    isCostly: true,
    usesLlm: true,
    ...(isGuardrail === undefined ? {} : { isGuardrail }),
    evaluate,
  };
}

/** What a judge concludes from its answers. */
export type Verdict = Pick<EvaluationResult, 'score' | 'passed' | 'label' | 'details'>;

/** A result after the judge was asked: the session's cost, and its report followed by `raw` in raw_response. */
export function judgedResult(
  judge: JudgeSession,
  status: 'processed' | 'skipped',
  verdict: Verdict,
  raw: Record<string, unknown>,
): EvaluationResult {
  return { status, ...verdict, cost: judge.cost(), raw_response: { ...judge.report(), ...raw } };
}

/**
 * A judge of one forced tool call: `conclude` turns the answer into the verdict; raw_response
 * holds the answer, or `raw` when `conclude` gives one.
 */
export async function judgeOnce<T extends z.ZodType<Record<string, unknown>>>(
  model: string,
  ctx: EvaluatorContext,
  call: JudgeCall<T>,
  conclude: (answer: z.output<T>) => Verdict & { raw?: Record<string, unknown> },
): Promise<EvaluationResult> {
  const judge = new JudgeSession(model, ctx);
  const answer = await judge.call(call);
  const { raw, ...verdict } = conclude(answer);
  return judgedResult(judge, 'processed', verdict, raw ?? answer);
}

/**
 * langevals' custom judges (llm_score, llm_category): the "# Input / # Output / # Contexts"
 * document with the custom prompt as its task (and `taskDetails` after it), answered through
 * the `evaluation` tool. Skipped when there is nothing to judge or it is above max_tokens.
 */
export async function customJudge<T extends z.ZodType<Record<string, unknown>>>(
  entry: Parameters<typeof judgedDocument>[0],
  config: JudgeLimits & { prompt: string },
  ctx: EvaluatorContext,
  task: { taskDetails?: string; toolDescription: string; answer: T },
  conclude: (answer: z.output<T>) => Verdict,
): Promise<EvaluationResult> {
  const doc = judgedDocument(entry);
  if (!doc) return { status: 'skipped', details: 'No content to evaluate: input, output and contexts are empty.' };
  const content = `${doc}# Task\n${config.prompt}${task.taskDetails ?? ''}`;
  const tooLong = skipIfTooLong(`${config.prompt} ${content}`, config.model, config.max_tokens);
  if (tooLong) return tooLong;

  return judgeOnce(
    config.model,
    ctx,
    {
      system: `${config.prompt}. Always output a valid json for the function call`,
      prompt: content,
      tool: { name: 'evaluation', description: task.toolDescription, input: task.answer },
    },
    conclude,
  );
}

/** The custom prompt setting of langevals' custom judges. */
export function customPromptSetting(defaultPrompt: string, description: string) {
  return z.string().trim().min(1).default(defaultPrompt).describe(description);
}

/**
 * The output and its non-blank contexts for the RAG judges, or the skipped result when the
 * output is blank (`why.noOutput`), there is no context (`why.noContexts`), or together they
 * are above max_tokens.
 */
export function outputAndContexts(
  entry: { output?: string | null; contexts?: string[] | null },
  config: JudgeLimits,
  why: { noOutput: string; noContexts: string },
): { skipped: EvaluationResult } | { skipped?: undefined; output: string; contexts: string[] } {
  const output = entry.output ?? '';
  if (!output.trim()) return { skipped: { status: 'skipped', details: why.noOutput } };
  const contexts = usableContexts(entry.contexts);
  if (contexts.length === 0) return { skipped: { status: 'skipped', details: why.noContexts } };
  const tooLong = skipIfTooLong(`${output}\n${contexts.join('\n')}`, config.model, config.max_tokens);
  if (tooLong) return { skipped: tooLong };
  return { output, contexts };
}
