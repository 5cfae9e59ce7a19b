/** What the evaluators that compare embeddings share: their model setting and the cosine. */
import { z } from 'zod';
import { InvalidProviderResponseError } from '../errors.ts';

/** langevals' `embeddings_model`, provider/model like a judge's `model`. */
export function embeddingsModelSetting(defaultModel: string) {
  return z
    .string()
    .regex(/^[A-Za-z0-9_.-]+\/\S+$/, 'must be provider/model, e.g. openai/text-embedding-3-small')
    .default(defaultModel)
    .describe('The embeddings model as provider/model: a model provider set in the app (OpenAI or OpenAI-compatible), or openai from the server environment.');
}

/** Cosine similarity of two vectors of the same length. */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new InvalidProviderResponseError(`the embeddings have different lengths (${a.length} and ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (na === 0 || nb === 0) throw new InvalidProviderResponseError('the embeddings model answered a zero vector');
  return dot / Math.sqrt(na * nb);
}
