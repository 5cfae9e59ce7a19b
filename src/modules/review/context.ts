import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { ProjectScope } from '../../platform/http/route-group.ts';
import type { AnnotationService, ScoreConfigService } from '../annotations/index.ts';

/** What the review module is given (wired by app.ts): the other modules only through these. */
export interface ReviewDeps {
  db: Database;
  clock: Clock;
  annotations: AnnotationService;
  scoreConfigs: ScoreConfigService;
  /** Ids of the traces matching a search, newest first, at most `limit` (the traces module's search). */
  matchingTraces(projectId: string, filter: Record<string, unknown>, limit: number): Promise<string[]>;
  /** The trace ids of an experiment run's rows; throws 404 for an unknown experiment or run. */
  experimentRunTraces(projectId: string, slug: string, runId: string): Promise<string[]>;
  /** The organization's members (ids and e-mails). */
  members(organizationId: string): Promise<{ userId: string; email: string }[]>;
}

/** How long a reviewer holds an item it claimed without completing, skipping or releasing it. */
export const CLAIM_MS = 10 * 60_000;

export type ReviewScope = Pick<ProjectScope, 'projectId' | 'organizationId' | 'userId'> & { principal: { keyId: string } };

/** Who reviews: the user (personal key or session), else the API key itself. */
export const reviewerOf = (scope: ReviewScope): string => scope.userId ?? `key:${scope.principal.keyId}`;
