import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { ProjectScope } from '../../platform/http/route-group.ts';
import type { Executor } from '../../db/index.ts';
import type { TraceSearch } from '../traces/index.ts';
import type { AnnotationContext, AnnotationService, ScoreConfigService, ScoreInput, ThreadReviewView } from '../annotations/index.ts';

/** What the review module is given (wired by app.ts): the other modules only through these. */
export interface ReviewDeps {
  db: Database;
  clock: Clock;
  annotations: AnnotationService;
  scoreConfigs: ScoreConfigService;
  /** Ids of the traces matching a search, newest first, at most `limit` (the traces module's search). */
  matchingTraces(projectId: string, search: TraceSearch, limit: number): Promise<string[]>;
  /** The trace ids of an experiment run's rows; throws 404 for an unknown experiment or run. */
  experimentRunTraces(projectId: string, slug: string, runId: string): Promise<string[]>;
  /** Thread items: the trace ids of a thread's turns, oldest first (the threads' turns, read by the traces module). */
  threadTraceIds(projectId: string, threadId: string): Promise<string[]>;
  /** Thread items: a review of the thread stored with its scores in the caller's transaction (the annotations module's). */
  threadReviews: {
    createIn(tx: Executor, ctx: AnnotationContext, threadId: string, input: { comment: string; scores: ScoreInput[]; traceIds: string[] }, now: Date): Promise<ThreadReviewView>;
    get(projectId: string, id: string): Promise<ThreadReviewView | null>;
  };
  /** The organization's members (ids and e-mails). */
  members(organizationId: string): Promise<{ userId: string; email: string }[]>;
}

/** How long a reviewer holds an item it claimed without completing, skipping or releasing it. */
export const CLAIM_MS = 10 * 60_000;

export type ReviewScope = Pick<ProjectScope, 'projectId' | 'organizationId' | 'userId'> & { principal: { keyId: string } };

/** Who reviews: the user (personal key or session), else the API key itself. */
export const reviewerOf = (scope: ReviewScope): string => scope.userId ?? `key:${scope.principal.keyId}`;
