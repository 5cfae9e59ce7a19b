/**
 * Ragas' non-LLM context metrics as pure functions (no I/O, no zod), so benchmarks and
 * other modules can call them directly.
 *
 * Both compare each string of one list with every string of the other through
 * similarity = 1 - normalized distance (./string-distance.ts), and keep the best one. As in
 * Ragas, the retrieved context is the first argument of the distance, the expected one the
 * second.
 */
import {
  similarityOfCodePoints,
  toCodePoints,
  type CodePoints,
  type DistanceMeasure,
} from './string-distance.ts';

/** Ragas NonLLMContextRecall: an expected context counts as retrieved when best similarity > threshold (default 0.5). */
export const RECALL_THRESHOLD = 0.5;
/** Ragas NonLLMContextPrecisionWithReference: a retrieved context is relevant when best similarity >= threshold (default 0.5). */
export const PRECISION_THRESHOLD = 0.5;
/** Ragas adds this to the denominator of average precision, so no relevant context gives 0, not NaN. */
export const AVERAGE_PRECISION_EPSILON = 1e-10;

export interface BestMatch {
  /** Highest similarity against the other list; 0 when the other list is empty. */
  bestSimilarity: number;
  /** Index of that string in the other list (first one on ties); null when the other list is empty. */
  bestMatchIndex: number | null;
}

export interface ContextRecallBreakdown {
  /** recalled / expected; null when there are no expected contexts (recall is undefined). */
  score: number | null;
  recalled: number;
  expected: number;
  perExpected: Array<BestMatch & { recalled: boolean }>;
}

export interface ContextPrecisionBreakdown {
  /**
   * sum_k(precision@k * v_k) / (sum_k v_k + 1e-10); null when there are no expected
   * contexts (nothing to judge relevance against). No retrieved contexts gives 0.
   */
  score: number | null;
  relevant: number;
  retrieved: number;
  /** In rank order (index 0 = rank 1). */
  perRetrieved: Array<BestMatch & { relevant: boolean; precisionAtK: number }>;
}

function bestMatch(candidate: CodePoints, others: CodePoints[], measure: DistanceMeasure, candidateFirst: boolean): BestMatch {
  let bestSimilarity = 0;
  let bestMatchIndex: number | null = null;
  for (let i = 0; i < others.length; i++) {
    const sim = candidateFirst
      ? similarityOfCodePoints(candidate, others[i], measure)
      : similarityOfCodePoints(others[i], candidate, measure);
    if (bestMatchIndex === null || sim > bestSimilarity) {
      bestSimilarity = sim;
      bestMatchIndex = i;
    }
  }
  return { bestSimilarity, bestMatchIndex };
}

export function contextRecall(
  contexts: readonly string[],
  expectedContexts: readonly string[],
  measure: DistanceMeasure = 'levenshtein',
  threshold: number = RECALL_THRESHOLD,
): ContextRecallBreakdown {
  const retrieved = contexts.map(toCodePoints);
  const perExpected = expectedContexts.map((expected) => {
    const match = bestMatch(toCodePoints(expected), retrieved, measure, false);
    return { ...match, recalled: match.bestSimilarity > threshold };
  });
  const recalled = perExpected.filter((e) => e.recalled).length;
  return {
    score: perExpected.length === 0 ? null : recalled / perExpected.length,
    recalled,
    expected: perExpected.length,
    perExpected,
  };
}

export function contextPrecision(
  contexts: readonly string[],
  expectedContexts: readonly string[],
  measure: DistanceMeasure = 'levenshtein',
  threshold: number = PRECISION_THRESHOLD,
): ContextPrecisionBreakdown {
  const expected = expectedContexts.map(toCodePoints);
  let relevant = 0;
  let numerator = 0;
  const perRetrieved = contexts.map((context, k) => {
    const match = bestMatch(toCodePoints(context), expected, measure, true);
    const isRelevant = match.bestSimilarity >= threshold;
    if (isRelevant) relevant++;
    const precisionAtK = relevant / (k + 1);
    if (isRelevant) numerator += precisionAtK;
    return { ...match, relevant: isRelevant, precisionAtK };
  });
  return {
    score: expected.length === 0 ? null : numerator / (relevant + AVERAGE_PRECISION_EPSILON),
    relevant,
    retrieved: perRetrieved.length,
    perRetrieved,
  };
}
