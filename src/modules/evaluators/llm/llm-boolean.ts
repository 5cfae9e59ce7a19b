import { z } from 'zod';
import { documentData, shortReasoning } from './judge-content.ts';
import { customJudge, customPromptSetting, judgeEvaluator, judgeOnce, judgeSettings } from './judge.ts';
import { skipIfTooLong } from './provider.ts';

// Defaults are langevals' CustomLLMBooleanSettings.
const booleanSettings = judgeSettings(128_000).extend({
  prompt: customPromptSetting(
    "You are an LLM evaluator. We need the guarantee that the output answers what is being asked on the input, please evaluate as False if it doesn't",
    'The system prompt to use for the LLM to run the evaluation',
  ),
});

const booleanVerdict = z.object({
  reasoning: z.string().describe('use this field to ponder and write a short reasoning behind the decision written before a result is actually given'),
  passed: z.boolean().describe('your final veredict, reply true or false if the content passes the test or not'),
});

/** langevals' CustomLLMBooleanEvaluator: the judge follows the custom prompt and answers true or false. */
export const llmBoolean = judgeEvaluator({
  path: 'langevals/llm_boolean',
  name: 'LLM-as-a-Judge Boolean Evaluator',
  description: 'Use an LLM as a judge with a custom prompt to do a true/false boolean evaluation of the message.',
  category: 'custom',
  data: documentData,
  settings: booleanSettings,
  isGuardrail: true,
  evaluate: ({ data, settings, ctx }) =>
    customJudge(
      data,
      settings,
      ctx,
      { toolDescription: 'use this function to write your thoughts on the reasoning, then decide if it passed or not with this json structure', answer: booleanVerdict },
      (answer) => ({ score: answer.passed ? 1 : 0, passed: answer.passed, details: shortReasoning(answer.reasoning) }),
    ),
});

const answerMatchSettings = judgeSettings(128_000).extend({
  prompt: customPromptSetting(
    'Verify that the predicted answer matches the gold answer for the question. Style does not matter, for example the gold answer may be more direct while the predicted answer more verbose and still be correct.',
    'Prompt for the comparison',
  ),
});

const answerMatchVerdict = z.object({
  reasoning: z.string().describe('reasoning for the answer'),
  is_correct: z.boolean().describe('True or False: does the predicted answer match the gold answer?'),
});

/**
 * langevals' LLMAnswerMatchEvaluator: question, gold answer and predicted answer go to the
 * judge under the custom prompt; passed = its is_correct, details = its reasoning.
 */
export const llmAnswerMatch = judgeEvaluator({
  path: 'langevals/llm_answer_match',
  name: 'LLM Answer Match',
  description: 'Uses an LLM to check if the generated output answers a question correctly the same way as the expected output, even if their style is different.',
  category: 'quality',
  data: z.object({
    input: z.string().nullish().describe('The question.'),
    output: z.string().nullish().describe('The predicted answer.'),
    expected_output: z.string().nullish().describe('The gold answer.'),
  }),
  settings: answerMatchSettings,
  evaluate: ({ data, settings, ctx }) => {
    const [question, predicted, gold] = [data.input ?? '', data.output ?? '', data.expected_output ?? ''];
    const tooLong = skipIfTooLong(`${question} ${predicted} ${gold}`, settings.model, settings.max_tokens);
    if (tooLong) return Promise.resolve(tooLong);
    return judgeOnce(
      settings.model,
      ctx,
      {
        system: `${settings.prompt}. Always output a valid json for the function call`,
        prompt: `# Question\n${question}\n\n# Gold answer (correct answer for question)\n${gold}\n\n# Predicted answer\n${predicted}`,
        tool: { name: 'evaluation', description: 'write your reasoning, then whether the predicted answer matches the gold answer', input: answerMatchVerdict },
      },
      (answer) => ({ passed: answer.is_correct, details: shortReasoning(answer.reasoning) }),
    );
  },
});
