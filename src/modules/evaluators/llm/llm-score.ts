import { z } from 'zod';
import { documentData, shortReasoning } from './judge-content.ts';
import { customJudge, customPromptSetting, judgeEvaluator, judgeSettings } from './judge.ts';

const data = documentData;

// Defaults are langevals' CustomLLMScoreSettings.
const settings = judgeSettings(8192).extend({
  prompt: customPromptSetting(
    'You are an LLM evaluator. Please score from 0.0 to 1.0 how likely the user is to be satisfied with this answer, from 0.0 being not satisfied at all to 1.0 being completely satisfied',
    'The system prompt the judge follows; it sets the scale of the score.',
  ),
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
export const llmScore = judgeEvaluator({
  path: 'llm/llm_score',
  name: 'LLM-as-a-Judge Score Evaluator',
  description: 'LLM-as-a-judge with a custom prompt gives a numeric score to the message.',
  category: 'custom',
  data,
  settings,
  evaluate: ({ data: entry, settings: config, ctx }) =>
    customJudge(entry, config, ctx, { toolDescription: 'Write your reasoning first, then decide on the final score', answer: verdict }, (answer) => ({
      score: answer.final_score,
      details: shortReasoning(answer.reasoning),
    })),
});
