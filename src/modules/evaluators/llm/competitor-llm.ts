import { z } from 'zod';
import { clamp01, optionalText, shortReasoning } from './judge-content.ts';
import { judgeEvaluator, judgeOnce, judgeSettings } from './judge.ts';
import { skipIfTooLong } from './provider.ts';

// Defaults are langevals' CompetitorLLMSettings, placeholders meant to be replaced.
const settings = judgeSettings(128_000).extend({
  name: z.string().trim().min(1).default('LangWatch').describe('The name of your company'),
  description: z.string().default('We are providing an LLM observability and evaluation platform').describe('Description of what your company is specializing at'),
});

const verdict = z.object({
  reasoning: z.string().describe('Use this field to ponder and write the reasoning behind the decision written before a result is actually given'),
  competitor_mentioned: z.boolean().describe('True - If the competitor is mentioned, False - if not'),
  confidence: z.number().describe('Confidence in your reasoning from 0 to 1'),
});

/**
 * langevals' CompetitorLLMEvaluator: without a list of competitors, the judge decides from the
 * company's description whether the message refers to a competitor, explicitly or implicitly.
 * passed = no competitor; score = the judge's confidence; details only when one is found.
 */
export const competitorLlm = judgeEvaluator({
  path: 'langevals/competitor_llm',
  name: 'Competitor Allowlist Check',
  description: 'This evaluator use an LLM-as-judge to check if the conversation is related to competitors, without having to name them explicitly',
  category: 'policy',
  data: z.object({ input: optionalText('The user message.'), output: optionalText('The assistant reply.') }),
  settings,
  isGuardrail: true,
  evaluate: ({ data, settings: s, ctx }) => {
    const content = `${data.input ?? ''}${data.output ? `\n${data.output}` : ''}`;
    if (!content.trim()) return Promise.resolve({ status: 'skipped', details: 'Input and Output are empty' });
    const tooLong = skipIfTooLong(content, s.model, s.max_tokens);
    if (tooLong) return Promise.resolve(tooLong);
    return judgeOnce(
      s.model,
      ctx,
      {
        system: `You are a competitor detection system. Your task is to determine whether a question explicitly or implicitly refers to any competitors.
This includes: comparisons between our brand and others, direct inquiries about competitors' products or services, and any mention of similar industries.
Remember that Your company is ${s.name} - ${s.description}.
If a question pertains to a related industry but not directly to our company, treat it as an implicit reference to competitors.`,
        prompt: content,
        tool: { name: 'competitor_check', description: 'Check if there is implicit mention of competitor', input: verdict },
      },
      (answer) => {
        const confidence = clamp01(answer.confidence);
        const passed = !answer.competitor_mentioned;
        return { score: confidence, passed, ...(passed ? {} : { details: `${confidence} - confidence score. Reasoning: ${shortReasoning(answer.reasoning)}` }) };
      },
    );
  },
});
