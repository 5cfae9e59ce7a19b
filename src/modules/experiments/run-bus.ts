import type { executionSummarySchema } from './schemas.ts';
import type { z } from 'zod';

/** The events of a platform run, as its event stream sends them (docs/experiments.md: Event stream). */
export type RunEvent =
  | { type: 'execution_started'; runId: string; total: number }
  | { type: 'cell_started'; rowIndex: number; targetId: string }
  | { type: 'target_result'; rowIndex: number; targetId: string; output: unknown; cost?: number; duration?: number; traceId?: string; error?: string }
  | {
      type: 'evaluator_result';
      rowIndex: number;
      targetId: string;
      evaluatorId: string;
      evaluatorName?: string;
      result: { status: string; score?: number; passed?: boolean; label?: string; details?: string; cost?: number };
      duration?: number;
      inputs?: Record<string, unknown>;
    }
  | { type: 'progress'; completed: number; total: number }
  | { type: 'error'; message: string; rowIndex?: number; targetId?: string; evaluatorId?: string; traceId?: string }
  | { type: 'stopped'; reason: 'user' | 'error' }
  | { type: 'done'; summary: z.output<typeof executionSummarySchema> };

type Listener = (event: RunEvent) => void;

/** In-process fan-out of a run's events to the streams following it (a stream only follows runs this process runs). */
export class RunBus {
  private readonly listeners = new Map<string, Set<Listener>>();

  on(runKey: string, listener: Listener): () => void {
    let set = this.listeners.get(runKey);
    if (!set) this.listeners.set(runKey, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (!set.size) this.listeners.delete(runKey);
    };
  }

  emit(runKey: string, event: RunEvent): void {
    for (const l of this.listeners.get(runKey) ?? []) l(event);
  }
}

export const runKey = (experimentId: string, runId: string) => `${experimentId}\u0000${runId}`;
