import { z } from 'zod';
import { clamp01, shortReasoning } from './judge-content.ts';
import { judgeEvaluator, judgeOnce, judgeSettings } from './judge.ts';
import { skipIfTooLong } from './provider.ts';

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

const settings = judgeSettings(131_072);

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
export const queryResolution = judgeEvaluator({
  path: 'llm/query_resolution',
  name: 'Query Resolution',
  description:
    'Checks that every user query in the conversation was resolved. Useful to detect when the bot does not know how to answer or cannot help the user. Score = resolved / total queries; passes when all were resolved.',
  category: 'quality',
  data,
  settings,
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

    return judgeOnce(
      config.model,
      ctx,
      {
        system:
          'You are a precise query resolution evaluator. Read the conversation between a user and a chatbot and find out whether every request the user made was resolved by the assistant.',
        prompt: transcript,
        tool: { name: 'query_resolution_evaluator', description: 'Report how many of the user queries were answered', input: verdict },
        maxOutputTokens: 1024,
      },
      (answer) => {
        const total = Math.max(0, Math.round(answer.queries_total));
        const resolved = Math.max(0, Math.round(answer.queries_answered));
        return {
          score: total === 0 ? 1 : clamp01(resolved / total),
          passed: resolved >= total,
          details: `There were ${total} queries in total and ${Math.min(resolved, total)} of them were resolved in the conversation. Reasoning: ${shortReasoning(answer.reasoning)}`,
          raw: { queries_total: total, queries_answered: resolved, reasoning: answer.reasoning },
        };
      },
    );
  },
});
