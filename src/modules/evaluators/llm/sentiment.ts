/**
 * langevals/sentiment: where the input's embedding sits between a positive and a negative
 * reference phrase. The score is (cosine to the positive phrase - cosine to the negative one)
 * divided by normalization_factor and clamped to [-1, 1]; the label is the sign of the raw
 * difference. langevals asks for the three embeddings one by one; here they go in one request.
 */
import { z } from 'zod';
import type { EvaluatorDefinition } from '../types.ts';
import { cosineSimilarity, embeddingsModelSetting } from './embeddings.ts';
import { JudgeSession, requiredEnvForModel, skipIfTooLong } from './provider.ts';

/** litellm's limit for OpenAI's embedding models (and langevals' fallback when a model's is unknown). */
const EMBEDDING_MAX_TOKENS = 8192;

const data = z.object({
  input: z.string().nullish().describe('The text whose sentiment is measured (a user message, a comment).'),
});

const settings = z.object({
  embeddings_model: embeddingsModelSetting('openai/text-embedding-3-small'),
  positive_reference: z.string().min(1).default('Comment of a very happy and satisfied user').describe('Reference phrase representing the positive end of the sentiment scale.'),
  negative_reference: z.string().min(1).default('Comment of a user who is extremely dissatisfied').describe('Reference phrase representing the negative end of the sentiment scale.'),
  normalization_factor: z
    .number()
    .default(0.1)
    .describe('Controls sentiment sensitivity. Decrease to make scores more extreme (fewer neutrals), increase to make scores more moderate (more neutrals).'),
});

export const sentiment: EvaluatorDefinition<typeof data, typeof settings> = {
  path: 'langevals/sentiment',
  name: 'Sentiment Evaluator',
  description:
    'Analyzes the sentiment of the input text by comparing its embedding similarity to positive and negative reference phrases. Returns a score from -1.0 (very negative) to 1.0 (very positive) and a corresponding label.',
  category: 'quality',
  data,
  settings,
  requiredEnv: [],
  requiredEnvFor: (s) => requiredEnvForModel(s.embeddings_model),
  isCostly: true,
  usesLlm: true,
  isGuardrail: false,
  async evaluate({ data: entry, settings: s, ctx }) {
    const input = entry.input ?? '';
    if (!input) return { status: 'skipped', details: 'No input text to evaluate' };
    const tooLong = skipIfTooLong(input, s.embeddings_model, EMBEDDING_MAX_TOKENS);
    if (tooLong) return tooLong;
    const session = new JudgeSession(s.embeddings_model, ctx);
    const [text, negative, positive] = await session.embed(s.embeddings_model, [input, s.negative_reference, s.positive_reference]);
    const raw = cosineSimilarity(text, positive) - cosineSimilarity(text, negative);
    // langevals divides by 1e-9 instead of 0, which makes any difference an extreme score
    const factor = s.normalization_factor !== 0 ? s.normalization_factor : 1e-9;
    const score = Math.max(-1, Math.min(1, raw / factor));
    const label = raw < 0 ? 'negative' : 'positive';
    return { status: 'processed', score, label, details: `Sentiment: ${label} (score: ${score.toFixed(2)})`, cost: session.cost(), raw_response: session.report() };
  },
};
