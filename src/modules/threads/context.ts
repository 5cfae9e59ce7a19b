import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { ScoreSummary, ThreadReviewView } from '../annotations/index.ts';
import type { ThreadsPickedRelation, ThreadValuesRelation, TraceAggregates } from '../traces/index.ts';

export interface Scope {
  organizationId: string;
  projectId: string;
}

/** A turn's contents as the traces module reads them: input, output, and its tool spans. */
export interface TurnContents {
  input: { value: string };
  output: { value: string };
  spans: { type: string; name: string | null; input: unknown; output: unknown }[];
}

/** What one evaluator run answered (the evaluators module's result, not stored by it). */
export interface ThreadVerdict {
  status: 'processed' | 'skipped' | 'error';
  score?: number;
  passed?: boolean;
  label?: string;
  details?: string;
  cost?: { currency: string; amount: number };
}

/** What the threads module needs: its database, the clock, and what other modules offer (wired by app.ts). */
export interface ThreadsContext {
  db: Database;
  clock: Clock;
  /** A project's threads with a trace the search (query, filters, dates) picks, summed, sorted and paged (the traces module's). */
  aggregateThreads: TraceAggregates['aggregateThreads'];
  /** Turns' contents by trace id, with their tool spans (the traces module's). */
  contents(projectId: string, traceIds: readonly string[]): Promise<Map<string, TurnContents>>;
  /** Runs an evaluator without storing its result; bad data or settings answer status error naming why. */
  runEvaluator(scope: Scope, path: string, data: Record<string, unknown>, settings: Record<string, unknown>): Promise<ThreadVerdict>;
  /** Per thread, people's review scores summed up per score config (the annotations module's). */
  reviewScores(projectId: string, threadIds: readonly string[]): Promise<Map<string, ScoreSummary[]>>;
  /** The threads people scored with a config within min..max or equal to value, as the annotations module's typed relation; 400 naming `field` when the filter cannot fit the config. */
  reviewScoreFilter(projectId: string, f: { configId: string; min?: number; max?: number; value?: string | boolean }, field: string): Promise<ThreadsPickedRelation>;
  /** A numeric or boolean config's mean per thread (threadId, value), the annotations module's typed relation; 400 naming `field` otherwise. */
  reviewScoreSort(projectId: string, configId: string, field: string): Promise<ThreadValuesRelation>;
  /** A thread's reviews, oldest first (the annotations module's). */
  reviews(projectId: string, threadId: string): Promise<ThreadReviewView[]>;
  /** The custom evaluator version `path` runs (null for a built-in evaluator); a 400 when it no longer can run. */
  evaluatorVersion(scope: Scope, path: string, settings: Record<string, unknown>): Promise<number | null>;
}
