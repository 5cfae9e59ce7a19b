import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';

/** What every use case of the module is given. */
export interface ExperimentsContext {
  db: Database;
  clock: Clock;
  /** Privacy at ingest (the privacy module): the project's redaction of logged rows, outputs and evaluation details. */
  redactor?: (projectId: string, path: string) => Promise<ValueRedactor>;
}

/** What experiments use of a project's redaction. */
export interface ValueRedactor {
  readonly active: boolean;
  value<T>(value: T, field: string): T;
  /** Ends one value: what was found is counted in /metrics. */
  take(): unknown;
}

/** The experiment's page in the web app, relative to the server's origin. */
export const experimentPath = (projectId: string, slug: string) => `/p/${encodeURIComponent(projectId)}/experiments/${encodeURIComponent(slug)}`;
