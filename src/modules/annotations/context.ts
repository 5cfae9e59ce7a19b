import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';

/** What the annotations use cases work with (built by module.ts). */
export interface AnnotationsContext {
  db: Database;
  clock: Clock;
  /** The project's privacy at ingest, for comments (the privacy module's); absent: comments are stored as written. */
  redactor?: (projectId: string, path: string) => Promise<CommentRedactor>;
}

/** Who is annotating, and in which project. */
export interface AnnotationScope {
  projectId: string;
  organizationId: string;
  /** The user of a personal key: recorded as the author. Null for project and service keys. */
  userId: string | null;
}

/** The name the review module knows the scope by. */
export type AnnotationContext = AnnotationScope;

/** Score configs are a project's: reads and changes name only the project. */
export type ScoreConfigScope = Pick<AnnotationScope, 'projectId'>;

export type AnchorFilter = 'trace' | 'all';

/** What annotations use of a project's privacy at ingest (the privacy module). */
export interface CommentRedactor {
  readonly active: boolean;
  text(text: string, field: string): string;
  /** Ends one comment: what was found is counted in /metrics. */
  take(): unknown;
}
