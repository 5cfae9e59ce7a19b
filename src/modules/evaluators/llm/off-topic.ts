import { z } from 'zod';
import { clamp01, optionalText } from './judge-content.ts';
import { judgeEvaluator, judgeOnce, judgeSettings } from './judge.ts';
import { skipIfTooLong } from './provider.ts';

const OTHER = 'other';

const data = z.object({
  input: optionalText('The user message to classify.'),
});

const allowedTopic = z.object({
  topic: z
    .string()
    .trim()
    .min(1, 'a topic must not be blank')
    .refine((t) => t !== OTHER, `"${OTHER}" is the judge's answer for anything off-topic and cannot be an allowed topic`),
  description: z.string().describe('What messages of this topic are about.'),
});

// Defaults are langevals' OffTopicSettings.
const settings = judgeSettings(131_072).extend({
  allowed_topics: z
    .array(allowedTopic)
    .min(1)
    .default([
      { topic: 'simple_chat', description: 'Smalltalk with the user' },
      { topic: 'company', description: 'Questions about the company, what we do, etc' },
    ])
    .describe('The topics, with short descriptions, that the chatbot is allowed to talk about.'),
});

/**
 * langevals' OffTopicEvaluator: the judge classifies the message's intent among the allowed
 * topics plus "other". label = the intent, score = the judge's confidence, passed = the intent
 * is an allowed topic.
 */
export const offTopic = judgeEvaluator({
  path: 'llm/off_topic',
  name: 'Off Topic Evaluator',
  description:
    'Checks that the user message concerns one of the allowed topics of the chatbot. Label = the detected topic (or "other"), score = the judge\'s confidence; passes when the topic is allowed.',
  category: 'policy',
  data,
  settings,
  isGuardrail: true,
  async evaluate({ data: entry, settings: config, ctx }) {
    const content = entry.input ?? '';
    if (!content.trim()) return { status: 'skipped', details: 'Input is empty.' };
    const tooLong = skipIfTooLong(content, config.model, config.max_tokens);
    if (tooLong) return tooLong;

    const [first, ...rest] = [...new Set(config.allowed_topics.map((t) => t.topic)), OTHER];
    const topics: [string, ...string[]] = [first, ...rest];
    return judgeOnce(
      config.model,
      ctx,
      {
        system: `You are an intent classification system. Identify the intent of the message among these intents:
${config.allowed_topics.map((t) => `- ${t.topic}: ${t.description}`).join('\n')}
- ${OTHER}: anything that fits none of the intents above`,
        prompt: content,
        tool: {
          name: 'identify_intent',
          description: 'Identify the intent of the message',
          input: z.object({
            intent: z.enum(topics).describe('The intent of the user message: what the message is about.'),
            confidence: z.number().describe('Confidence in the identified intent, from 0.0 to 1.0.'),
          }),
        },
        maxOutputTokens: 1024,
      },
      (answer) => ({
        score: clamp01(answer.confidence),
        passed: answer.intent !== OTHER,
        label: answer.intent,
        details: `Detected intent: ${answer.intent}`,
      }),
    );
  },
});
