import type { z } from 'zod';
import type { EvaluationResult, EvaluatorDefinition } from '../types.ts';
import { contextsData, stringDistanceSettings } from './schemas.ts';

/**
 * An evaluator that compares retrieved with expected contexts by string distance (recall,
 * precision): the inputs, settings and the skip without expected contexts they share.
 */
export function contextsEvaluator(spec: {
  path: string;
  name: string;
  description: string;
  /** Details of the skipped result when no expected contexts were given. */
  skippedDetails: string;
  /** The processed result; expected_contexts is not empty. */
  score(data: z.output<typeof contextsData>, settings: z.output<typeof stringDistanceSettings>): EvaluationResult;
}): EvaluatorDefinition<typeof contextsData, typeof stringDistanceSettings> {
  return {
    path: spec.path,
    name: spec.name,
    description: spec.description,
    category: 'rag',
    data: contextsData,
    settings: stringDistanceSettings,
    requiredEnv: [],
    isCostly: false,
    // Nothing to wait for: the score is computed at once (a throw still reaches the runner as a rejection).
    evaluate({ data, settings }) {
      if (data.expected_contexts.length === 0) return Promise.resolve({ status: 'skipped', details: spec.skippedDetails });
      return Promise.resolve(spec.score(data, settings));
    },
  };
}
