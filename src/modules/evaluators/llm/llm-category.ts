import { z } from 'zod';
import type { EvaluatorDefinition } from '../types.ts';
import { judgedDocument, optionalContexts, optionalText, shortReasoning } from './judge-content.ts';
import { JudgeSession, maxTokensSetting, modelSetting, requiredEnvForModel, skipIfTooLong } from './provider.ts';

const data = z.object({
  input: optionalText('The user message.'),
  output: optionalText('The assistant reply.'),
  contexts: optionalContexts,
});

const category = z.object({
  name: z.string().trim().min(1, 'a category name must not be blank'),
  description: z.string().describe('What belongs in this category.'),
});

// Defaults are langevals' CustomLLMCategorySettings.
const settings = z.object({
  model: modelSetting,
  max_tokens: maxTokensSetting(131_072),
  prompt: z
    .string()
    .trim()
    .min(1)
    .default('You are an LLM category evaluator. Please categorize the message in one of the following categories')
    .describe('The system prompt the judge follows.'),
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
export const llmCategory: EvaluatorDefinition<typeof data, typeof settings> = {
  path: 'llm/llm_category',
  name: 'LLM-as-a-Judge Category Evaluator',
  description:
    'LLM-as-a-judge with a custom prompt classifies the message into one of custom categories; the category is the result label.',
  category: 'custom',
  data,
  settings,
  requiredEnv: [],
  requiredEnvFor: (s) => requiredEnvForModel(s.model),
  isCostly: true,
  async evaluate({ data: entry, settings: config, ctx }) {
    const doc = judgedDocument(entry);
    if (!doc) return { status: 'skipped', details: 'No content to evaluate: input, output and contexts are empty.' };
    const content = `${doc}# Task\n${config.prompt}\n\n# Categories\n${config.categories
      .map((c) => `- ${c.name}: ${c.description}`)
      .join('\n')}`;
    const tooLong = skipIfTooLong(`${config.prompt} ${content}`, config.model, config.max_tokens);
    if (tooLong) return tooLong;

    const names = config.categories.map((c) => c.name) as [string, ...string[]];
    const judge = new JudgeSession(config.model, ctx);
    const answer = await judge.call({
      system: `${config.prompt}. Always output a valid json for the function call`,
      prompt: content,
      tool: {
        name: 'evaluation',
        description: 'Write a short reasoning first, then decide the category of the message',
        input: z.object({
          reasoning: z.string().describe('A short reasoning behind the decision, written before deciding.'),
          label: z.enum(names).describe('The category of the message.'),
        }),
      },
    });
    return {
      status: 'processed',
      label: answer.label,
      details: shortReasoning(answer.reasoning),
      cost: judge.cost(),
      raw_response: { ...judge.report(), ...answer },
    };
  },
};
