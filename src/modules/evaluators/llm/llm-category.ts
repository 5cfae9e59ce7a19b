import { z } from 'zod';
import { documentData, shortReasoning } from './judge-content.ts';
import { customJudge, customPromptSetting, judgeEvaluator, judgeSettings } from './judge.ts';

const data = documentData;

const category = z.object({
  name: z.string().trim().min(1, 'a category name must not be blank'),
  description: z.string().describe('What belongs in this category.'),
});

// Defaults are langevals' CustomLLMCategorySettings.
const settings = judgeSettings(131_072).extend({
  prompt: customPromptSetting(
    'You are an LLM category evaluator. Please categorize the message in one of the following categories',
    'The system prompt the judge follows.',
  ),
  categories: z
    .array(category)
    .min(1)
    .refine((list) => new Set(list.map((c) => c.name)).size === list.length, 'category names must be unique')
    .default([
      { name: 'smalltalk', description: 'Smalltalk with the user' },
      { name: 'company', description: 'Questions about the company, what we do, etc' },
    ])
    .describe('The categories the judge chooses from; the chosen name is the result label.'),
});

/**
 * langevals' CustomLLMCategoryEvaluator: the judge reads input, output and contexts with the
 * custom prompt and answers one of the category names (an enum in the tool schema); the result
 * has `label` = that name and `details` = the judge's reasoning.
 */
export const llmCategory = judgeEvaluator({
  path: 'llm/llm_category',
  name: 'LLM-as-a-Judge Category Evaluator',
  description:
    'LLM-as-a-judge with a custom prompt classifies the message into one of custom categories; the category is the result label.',
  category: 'custom',
  data,
  settings,
  evaluate({ data: entry, settings: config, ctx }) {
    const names = config.categories.map((c) => c.name) as [string, ...string[]];
    return customJudge(
      entry,
      config,
      ctx,
      {
        taskDetails: `\n\n# Categories\n${config.categories.map((c) => `- ${c.name}: ${c.description}`).join('\n')}`,
        toolDescription: 'Write a short reasoning first, then decide the category of the message',
        answer: z.object({
          reasoning: z.string().describe('A short reasoning behind the decision, written before deciding.'),
          label: z.enum(names).describe('The category of the message.'),
        }),
      },
      (answer) => ({ label: answer.label, details: shortReasoning(answer.reasoning) }),
    );
  },
});
