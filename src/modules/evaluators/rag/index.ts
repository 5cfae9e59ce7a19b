export { contextRecallEvaluator } from './context-recall.ts';
export { contextPrecisionEvaluator } from './context-precision.ts';
export {
  contextRecall,
  contextPrecision,
  RECALL_THRESHOLD,
  PRECISION_THRESHOLD,
  type ContextRecallBreakdown,
  type ContextPrecisionBreakdown,
  type BestMatch,
} from './context-metrics.ts';
export {
  DISTANCE_MEASURES,
  type DistanceMeasure,
  stringSimilarity,
  normalizedDistance,
  levenshteinDistance,
  hammingDistance,
  jaroSimilarity,
  jaroWinklerSimilarity,
  toCodePoints,
} from './string-distance.ts';
