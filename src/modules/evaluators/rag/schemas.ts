import { z } from 'zod';
import { DISTANCE_MEASURES } from './string-distance.ts';

/** Data of rag/context_recall and rag/context_precision. */
export const contextsData = z.object({
  contexts: z
    .array(z.string())
    .describe('Retrieved contexts, in the order the retriever ranked them (first = top result).'),
  expected_contexts: z
    .array(z.string())
    .describe('Reference contexts: the ones that should have been retrieved.'),
});

export const stringDistanceSettings = z.object({
  distance_measure: z
    .enum(DISTANCE_MEASURES)
    .default('levenshtein')
    .describe(
      'String distance used to compare contexts (rapidfuzz definitions, over Unicode code points, case-sensitive); similarity = 1 - normalized distance.',
    ),
  threshold: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe(
      "Ragas' threshold: the string similarity at which a context counts as found (recall: above it; precision: at or above it).",
    ),
});
