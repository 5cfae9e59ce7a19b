import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { ProjectScope } from '../../platform/http/route-group.ts';
import type { ScoreConfigService } from '../annotations/index.ts';

/** Who acts, as the review module's use cases take it. */
export type ActingScope = Pick<ProjectScope, 'projectId' | 'organizationId' | 'userId'> & { principal: { keyId: string } };

/** The review module's use cases this module calls (wired in app.ts): queues are reached through them, never their tables. */
export interface ReviewQueuePort {
  queueExists(projectId: string, queueId: string): Promise<boolean>;
  queueName(scope: ActingScope, queueId: string): Promise<string>;
  /** A new queue whose reviewers fill in `scoreConfigIds`; a taken name is a 409 naming body.name. */
  createQueue(scope: ActingScope, name: string, scoreConfigIds: string[]): Promise<{ id: string; name: string }>;
  addTraces(scope: ActingScope, queueId: string, traceIds: string[]): Promise<{ added: number; alreadyQueued: number }>;
}

/** One run of a judge that stores nothing (the evaluators module's runDetached), and what a trace gives it (wired in app.ts). */
export interface JudgeRunPort {
  /** the evaluator data a trace offers (its input, output, contexts, conversation), as monitors give it; null when the trace is gone */
  traceData(projectId: string, traceId: string): Promise<Record<string, unknown> | null>;
  /** whether a custom judge (custom/<slug>) has this version, results or not */
  versionExists(projectId: string, evaluator: string, version: number): Promise<boolean>;
  run(
    scope: { organizationId: string; projectId: string },
    evaluator: string,
    data: Record<string, unknown>,
    settings: Record<string, unknown>,
  ): Promise<{ status: string; score?: number | null; passed?: boolean | null; label?: string | null; details?: string | null }>;
}

export interface JudgeAlignmentContext {
  db: Database;
  clock: Clock;
  scoreConfigs: ScoreConfigService;
  review: ReviewQueuePort;
  judges: JudgeRunPort;
}
