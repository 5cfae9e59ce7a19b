import { contextPrecision } from './context-metrics.ts';
import { contextsEvaluator } from './contexts-evaluator.ts';

/**
 * Ragas NonLLMContextPrecisionWithReference (average precision over the ranking). Empty lists:
 * - no expected contexts: skipped, relevance cannot be judged without a reference
 *   (Ragas raises on max() of an empty list);
 * - no retrieved contexts (but some expected): processed, score 0, as Ragas' formula
 *   gives (0 / (0 + 1e-10)).
 * Empty strings inside the lists are compared like any other (two empty strings are identical).
 */
export const contextPrecisionEvaluator = contextsEvaluator({
  path: 'rag/context_precision',
  name: 'Context Precision',
  description:
    'How well the retriever ranks relevant contexts first: a retrieved context is relevant when some expected context has a string similarity of at least `threshold` (0.5); score = average precision over the ranking. No LLM involved (Ragas NonLLMContextPrecisionWithReference).',
  skippedDetails: 'No expected contexts were given, so the relevance of the retrieved contexts cannot be judged.',
  score(data, { distance_measure: measure, threshold }) {
    const result = contextPrecision(data.contexts, data.expected_contexts, measure, threshold);
    const score = result.score ?? 0;
    const details =
      data.contexts.length === 0
        ? 'No contexts were retrieved: precision is 0.'
        : `${result.relevant} of ${result.retrieved} retrieved contexts are relevant (best ${measure} similarity >= ${threshold}); average precision ${formatScore(score)}.`;
    return {
      status: 'processed',
      score,
      details,
      raw_response: {
        distance_measure: measure,
        threshold,
        relevant: result.relevant,
        retrieved: result.retrieved,
        retrieved_contexts: result.perRetrieved.map((r, index) => ({
          rank: index + 1,
          best_similarity: r.bestSimilarity,
          best_match_index: r.bestMatchIndex,
          relevant: r.relevant,
          precision_at_k: r.precisionAtK,
        })),
      },
    };
  },
});

function formatScore(score: number): string {
  return String(Math.round(score * 10_000) / 10_000);
}
