import { z } from 'zod';
import { clamp01, optionalText, shortReasoning } from './judge-content.ts';
import { judgeEvaluator, judgeOnce, judgeSettings } from './judge.ts';
import { skipIfTooLong } from './provider.ts';

const data = z.object({
  input: optionalText('The user message to check for competitor mentions.'),
  output: optionalText('The assistant reply to check for competitor mentions.'),
});

const competitor = z.union([
  z.string().trim().min(1, 'a competitor name must not be blank'),
  z.object({
    name: z.string().trim().min(1, 'a competitor name must not be blank'),
    description: z.string().optional().describe('What the competitor does, to help the judge recognise indirect mentions.'),
  }),
]);

// Defaults are langevals' CompetitorLLMFunctionCallSettings, placeholders meant to be replaced.
const settings = judgeSettings(131_072).extend({
  name: z.string().trim().min(1).default('LangWatch').describe('The name of your company.'),
  description: z
    .string()
    .default('We are providing an LLM observability and evaluation platform')
    .describe('What your company specializes in.'),
  competitors: z
    .array(competitor)
    .min(1)
    .default(['OpenAI', 'Google', 'Microsoft'])
    .describe('The competitors that must not be mentioned: names, or {name, description}.'),
});

const verdict = z.object({
  reasoning: z.string().describe('Why you think a competitor was or was not mentioned.'),
  confidence: z.number().describe('Confidence that a competitor was mentioned, from 0 to 1.'),
  competitor_mentioned: z.boolean().describe('true if a competitor is mentioned, false if not.'),
});

/**
 * langevals' CompetitorLLMFunctionCallEvaluator: the judge reads the message knowing the
 * company and its competitors and calls competitor_check (here forced, where langevals left
 * the tool choice to the model). score = confidence, passed = no competitor mentioned.
 */
export const competitorLlmFunctionCall = judgeEvaluator({
  path: 'llm/competitor_llm_function_call',
  name: 'Competitor LLM Check',
  description:
    'LLM-as-a-judge through a function call: does the message mention a competitor, also indirectly (products, nicknames)? Score = the judge\'s confidence that one is mentioned; passes when none is.',
  category: 'policy',
  data,
  settings,
  isGuardrail: true,
  async evaluate({ data: entry, settings: config, ctx }) {
    const parts = [entry.input, entry.output].filter((t): t is string => !!t?.trim());
    if (parts.length === 0) return { status: 'skipped', details: 'Input and output are empty.' };
    const message = parts.join('\n');
    const tooLong = skipIfTooLong(message, config.model, config.max_tokens);
    if (tooLong) return tooLong;

    const competitors = config.competitors
      .map((c) => (typeof c === 'string' ? `- ${c}` : `- ${c.name}${c.description ? `: ${c.description}` : ''}`))
      .join('\n');
    return judgeOnce(
      config.model,
      ctx,
      {
        system: `You are a competitor detection system working for ${config.name} - ${config.description}.
Your task is to find mentions of competitors in the message you are given, including indirect ones (their products, services or nicknames).
The competitors work in the same field as the company and are:
${competitors}`,
        prompt: `Was a competitor mentioned in this message?\n\n${message}`,
        tool: { name: 'competitor_check', description: 'Report whether any competitor was mentioned', input: verdict },
        maxOutputTokens: 1024,
      },
      (answer) => {
        const confidence = clamp01(answer.confidence);
        const passed = !answer.competitor_mentioned;
        return {
          score: confidence,
          passed,
          details: passed
            ? `No competitor mentioned. Reasoning: ${shortReasoning(answer.reasoning)}`
            : `${confidence} - confidence score. Reasoning: ${shortReasoning(answer.reasoning)}`,
        };
      },
    );
  },
});
