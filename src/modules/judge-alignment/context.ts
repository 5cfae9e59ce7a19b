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

/**
 * The experiments module's judge runs (wired in app.ts): a comparison's new version runs as an
 * experiment whose target is the judge, its rows the labelled items; its tables stay the experiments module's.
 */
export interface JudgeExperimentsPort {
  /** Starts the run (the experiment made on the first); a judge that cannot run, or a slug taken, is a 4xx naming `input.field`. */
  startJudgeRun(
    scope: Pick<ActingScope, 'projectId' | 'organizationId' | 'userId'>,
    input: { slug: string; name: string; evaluator: string; version: number | null; rows: Record<string, unknown>[]; traceColumn?: string; field: string },
    origin: string,
  ): Promise<{ experimentSlug: string; runId: string; runUrl: string }>;
  /** running, or ended with each row's answer: the judge's output (passed, score, label...) or the cell's error */
  judgeRunAnswers(projectId: string, slug: string, runId: string): Promise<{ status: 'running' | 'completed' | 'stopped'; answers: { index: number; output: unknown; error: string | null }[] }>;
}

export interface JudgeAlignmentContext {
  db: Database;
  clock: Clock;
  scoreConfigs: ScoreConfigService;
  review: ReviewQueuePort;
  judges: JudgeRunPort;
}

/** What comparing a judge's versions needs besides: the experiments module's judge runs. */
export interface VersionComparisonContext extends JudgeAlignmentContext {
  experiments: JudgeExperimentsPort;
}
