/**
 * langevals/similarity: the cosine similarity of the embeddings of the input or the output and
 * of a target phrase, by langevals' settings (field, rule, value, threshold, embeddings_model).
 * is_similar_to passes above the threshold, is_not_similar_to below it.
 */
import { z } from 'zod';
import type { EvaluatorDefinition } from '../types.ts';
import { cosineSimilarity, embeddingsModelSetting } from './embeddings.ts';
import { JudgeSession, requiredEnvForModel, skipIfTooLong } from './provider.ts';

/** langevals' DEFAULT_MAX_TOKENS: longer text is skipped, not sent. */
const MAX_TOKENS = 128_000;

const data = z.object({
  input: z.string().nullish().describe('The user message.'),
  output: z.string().nullish().describe('The assistant reply.'),
});

const settings = z.object({
  field: z.enum(['input', 'output']).default('output').describe('Which text to compare with the value.'),
  rule: z.enum(['is_not_similar_to', 'is_similar_to']).default('is_not_similar_to').describe('Pass when the text is (or is not) similar to the value.'),
  value: z.string().min(1).default('example').describe('The phrase the text is compared with.'),
  threshold: z.number().min(-1).max(1).default(0.3).describe('The cosine similarity the rule compares with.'),
  embeddings_model: embeddingsModelSetting('openai/text-embedding-3-small'),
});

export const similarity: EvaluatorDefinition<typeof data, typeof settings> = {
  path: 'langevals/similarity',
  name: 'Semantic Similarity Evaluator',
  description:
    "Allows you to check for semantic similarity or dissimilarity between input and output and a target value, so you can avoid sentences that you don't want to be present without having to match on the exact text.",
  category: 'custom',
  data,
  settings,
  requiredEnv: [],
  requiredEnvFor: (s) => requiredEnvForModel(s.embeddings_model),
  isCostly: true,
  usesLlm: true,
  isGuardrail: true,
  async evaluate({ data: entry, settings: s, ctx }) {
    const content = (s.field === 'input' ? entry.input : entry.output) ?? '';
    if (!content) return { status: 'skipped', details: 'No content to evaluate' };
    const tooLong = skipIfTooLong(`${s.value} ${content}`, s.embeddings_model, MAX_TOKENS);
    if (tooLong) return tooLong;
    const session = new JudgeSession(s.embeddings_model, ctx);
    const [target, text] = await session.embed(s.embeddings_model, [s.value, content]);
    const score = cosineSimilarity(target, text);
    const similar = s.rule === 'is_similar_to';
    return {
      status: 'processed',
      score,
      passed: similar ? score > s.threshold : score < s.threshold,
      details: `Cosine similarity of ${score.toFixed(2)} between ${s.field} and "${s.value}" (threshold: ${similar ? '>' : '<'} ${s.threshold})`,
      cost: session.cost(),
      raw_response: session.report(),
    };
  },
};
