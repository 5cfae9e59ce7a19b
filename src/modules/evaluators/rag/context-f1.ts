import { z } from 'zod';
import { check } from '../checks/index.ts';
import { contextPrecision, contextRecall } from './context-metrics.ts';
import { contextsData, stringDistanceSettings } from './schemas.ts';

/**
 * Ragas' non-LLM context F1 as langevals runs it: the harmonic mean of rag/context_precision
 * and rag/context_recall (Ragas' thresholds), with langevals' answers for empty lists (both
 * empty: 1; no expected contexts: precision 0, recall 1; none retrieved: both 0).
 */
export const contextF1 = check({
  path: 'ragas/context_f1',
  name: 'Context F1',
  description:
    'Balances between precision and recall for context retrieval, increasing it means a better signal-to-noise ratio. Uses traditional string distance metrics.',
  category: 'rag',
  data: contextsData,
  settings: z.object({ distance_measure: stringDistanceSettings.shape.distance_measure }),
  evaluate: ({ data, settings }) => {
    const { contexts, expected_contexts: expected } = data;
    const measure = settings.distance_measure;
    const bothEmpty = contexts.length === 0 && expected.length === 0;
    const precision = bothEmpty ? 1 : contexts.length === 0 || expected.length === 0 ? 0 : (contextPrecision(contexts, expected, measure).score ?? 0);
    const recall = expected.length === 0 ? 1 : contexts.length === 0 ? 0 : (contextRecall(contexts, expected, measure).score ?? 0);
    const score = precision + recall !== 0 ? (2 * precision * recall) / (precision + recall) : 0;
    return Promise.resolve({ status: 'processed', score, details: `Precision: ${precision}, Recall: ${recall}`, raw_response: { precision, recall } });
  },
});
