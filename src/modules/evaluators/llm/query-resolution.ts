import { z } from 'zod';
import type { EvaluatorDefinition } from '../types.ts';
import { clamp01, shortReasoning } from './judge-content.ts';
import { JudgeSession, maxTokensSetting, modelSetting, requiredEnvForModel, skipIfTooLong } from './provider.ts';

const contentPart = z.looseObject({ type: z.string().optional(), text: z.string().nullish() });

const message = z.object({
  role: z.string().min(1).describe('user, assistant, system or tool'),
  content: z
    .union([z.string(), z.array(contentPart), z.null()])
    .optional()
    .describe('The message text (or OpenAI-style content parts, whose text parts are read).'),
});

const data = z.object({
  conversation: z
    .array(message)
    .nullish()
    .describe('The conversation in order, as chat messages {role, content}.'),
});

const settings = z.object({
  model: modelSetting,
  max_tokens: maxTokensSetting(131_072),
});

function messageText(content: z.output<typeof message>['content']): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => p.text ?? '').join('');
  return '';
}

const verdict = z.object({
  reasoning: z.string().describe('A short reasoning in 1 to 3 sentences; do not repeat the conversation.'),
  queries_total: z
    .number()
    .describe('How many requests the user made in the conversation; greetings and remarks that ask for nothing do not count.'),
  queries_answered: z.number().describe('How many of those requests the assistant resolved.'),
});

/**
 * langevals' QueryResolutionEvaluator: the judge counts the user's requests and the resolved
 * ones; score = resolved / total (1 when there was nothing to resolve), passed = all resolved.
 */
export const queryResolution: EvaluatorDefinition<typeof data, typeof settings> = {
  path: 'llm/query_resolution',
  name: 'Query Resolution',
  description:
    'Checks that every user query in the conversation was resolved. Useful to detect when the bot does not know how to answer or cannot help the user. Score = resolved / total queries; passes when all were resolved.',
  category: 'quality',
  data,
  settings,
  requiredEnv: [],
  requiredEnvFor: (s) => requiredEnvForModel(s.model),
  isCostly: true,
  async evaluate({ data: entry, settings: config, ctx }) {
    const turns = (entry.conversation ?? [])
      .map((m) => ({ role: m.role.toUpperCase(), text: messageText(m.content) }))
      .filter((t) => t.text.trim() !== '');
    if (!turns.some((t) => t.role === 'USER')) {
      return { status: 'skipped', details: 'The conversation has no user message, so there is no query to resolve.' };
    }
    const transcript = turns.map((t) => `${t.role}: ${t.text}`).join('\n');
    const tooLong = skipIfTooLong(transcript, config.model, config.max_tokens);
    if (tooLong) return tooLong;

    const judge = new JudgeSession(config.model, ctx);
    const answer = await judge.call({
      system:
        'You are a precise query resolution evaluator. Read the conversation between a user and a chatbot and find out whether every request the user made was resolved by the assistant.',
      prompt: transcript,
      tool: { name: 'query_resolution_evaluator', description: 'Report how many of the user queries were answered', input: verdict },
      maxOutputTokens: 1024,
    });
    const total = Math.max(0, Math.round(answer.queries_total));
    const resolved = Math.max(0, Math.round(answer.queries_answered));
    const score = total === 0 ? 1 : clamp01(resolved / total);
    return {
      status: 'processed',
      score,
      passed: resolved >= total,
      details: `There were ${total} queries in total and ${Math.min(resolved, total)} of them were resolved in the conversation. Reasoning: ${shortReasoning(answer.reasoning)}`,
      cost: judge.cost(),
      raw_response: { ...judge.report(), queries_total: total, queries_answered: resolved, reasoning: answer.reasoning },
    };
  },
};
