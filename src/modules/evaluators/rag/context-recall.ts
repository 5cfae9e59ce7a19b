import { contextRecall } from './context-metrics.ts';
import { contextsEvaluator } from './contexts-evaluator.ts';

/**
 * Ragas NonLLMContextRecall. Empty lists, which Ragas does not define (NaN or an error):
 * - no expected contexts: skipped, recall has nothing to be measured against;
 * - no retrieved contexts (but some expected): processed, score 0, nothing was found.
 * Empty strings inside the lists are compared like any other (two empty strings are identical).
 */
export const contextRecallEvaluator = contextsEvaluator({
  path: 'rag/context_recall',
  name: 'Context Recall',
  description:
    'How many of the expected contexts were retrieved: an expected context counts when some retrieved context has a string similarity above `threshold` (0.5). Score = found / expected. No LLM involved (Ragas NonLLMContextRecall).',
  skippedDetails: 'No expected contexts were given, so there is nothing to recall.',
  score(data, { distance_measure: measure, threshold }) {
    const result = contextRecall(data.contexts, data.expected_contexts, measure, threshold);
    const details =
      data.contexts.length === 0
        ? `No contexts were retrieved: 0 of ${result.expected} expected contexts found.`
        : `${result.recalled} of ${result.expected} expected contexts found among ${data.contexts.length} retrieved (best ${measure} similarity > ${threshold}).`;
    return {
      status: 'processed',
      score: result.score ?? 0,
      details,
      raw_response: {
        distance_measure: measure,
        threshold,
        recalled: result.recalled,
        expected: result.expected,
        expected_contexts: result.perExpected.map((e, index) => ({
          index,
          best_similarity: e.bestSimilarity,
          best_match_index: e.bestMatchIndex,
          recalled: e.recalled,
        })),
      },
    };
  },
});
