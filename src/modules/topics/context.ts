import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { TraceInputsPick } from '../traces/index.ts';

export interface ProjectScope {
  organizationId: string;
  projectId: string;
}

/** What the topics module needs of the others (wired by app.ts). */
export interface TopicsContext {
  db: Database;
  clock: Clock;
  /** Embeddings of texts by provider/model; a 400 naming `field` for a provider that does not exist. */
  embed(scope: ProjectScope, model: string, texts: string[], field: string): Promise<number[][]>;
  /** Refuses (400 naming `field`) a provider/model whose provider is set neither in the app nor in the environment. */
  checkProvider(scope: ProjectScope, model: string, field: string): Promise<void>;
  /** A chat model's answer to one user message (naming a topic). */
  complete(scope: ProjectScope, model: string, prompt: string): Promise<string>;
  /** Traces' inputs (of these ids, or ingested since a time and not embedded yet), newest first or in the order they were first ingested (the traces module's). */
  traceInputs(projectId: string, pick: TraceInputsPick, limit: number, order?: 'newest' | 'ingested'): Promise<{ trace_id: string; started_at: number; inserted_at: number; input: string | null }[]>;
  /** Per topic sums over a range (analytics, grouped by topic). */
  topicSums(projectId: string, range: { startDate: number; endDate: number }): Promise<{ group: string | null; traces: number; errors: number; cost: number; thumbs_up: number; thumbs_down: number }[]>;
  /** Evaluation verdicts of a range's traces, each with its topic (analytics). */
  topicVerdicts(projectId: string, range: { startDate: number; endDate: number }): Promise<{ g: string | null; evaluator: string; passed: boolean | null }[]>;
}
