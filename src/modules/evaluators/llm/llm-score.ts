import { z } from 'zod';
import type { EvaluatorDefinition } from '../types.ts';
import { judgedDocument, optionalContexts, optionalText, shortReasoning } from './judge-content.ts';
import { JudgeSession, maxTokensSetting, modelSetting, requiredEnvForModel, skipIfTooLong } from './provider.ts';

const data = z.object({
  input: optionalText('The user message.'),
  output: optionalText('The assistant reply.'),
  contexts: optionalContexts,
});

// Defaults are langevals' CustomLLMScoreSettings.
const settings = z.object({
  model: modelSetting,
  max_tokens: maxTokensSetting(8192),
  prompt: z
    .string()
    .trim()
    .min(1)
    .default(
      'You are an LLM evaluator. Please score from 0.0 to 1.0 how likely the user is to be satisfied with this answer, from 0.0 being not satisfied at all to 1.0 being completely satisfied',
    )
    .describe('The system prompt the judge follows; it sets the scale of the score.'),
});

const verdict = z.object({
  reasoning: z
    .string()
    .describe('Break the task down, explain your reasoning in sub-scores and how they combine into the final score.'),
  final_score: z.number().describe('Your final score for the task.'),
});

/**
 * langevals' CustomLLMScoreEvaluator: the judge follows the custom prompt and answers a number;
 * score = that number as given (the prompt sets the scale), details = the judge's reasoning.
 */
export const llmScore: EvaluatorDefinition<typeof data, typeof settings> = {
  path: 'llm/llm_score',
  name: 'LLM-as-a-Judge Score Evaluator',
  description: 'LLM-as-a-judge with a custom prompt gives a numeric score to the message.',
  category: 'custom',
  data,
  settings,
  requiredEnv: [],
  requiredEnvFor: (s) => requiredEnvForModel(s.model),
  isCostly: true,
  async evaluate({ data: entry, settings: config, ctx }) {
    const doc = judgedDocument(entry);
    if (!doc) return { status: 'skipped', details: 'No content to evaluate: input, output and contexts are empty.' };
    const content = `${doc}# Task\n${config.prompt}`;
    const tooLong = skipIfTooLong(`${config.prompt} ${content}`, config.model, config.max_tokens);
    if (tooLong) return tooLong;

    const judge = new JudgeSession(config.model, ctx);
    const answer = await judge.call({
      system: `${config.prompt}. Always output a valid json for the function call`,
      prompt: content,
      tool: {
        name: 'evaluation',
        description: 'Write your reasoning first, then decide on the final score',
        input: verdict,
      },
    });
    return {
      status: 'processed',
      score: answer.final_score,
      details: shortReasoning(answer.reasoning),
      cost: judge.cost(),
      raw_response: { ...judge.report(), ...answer },
    };
  },
};
