import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';

/** What every use case of the module is given. */
export interface ExperimentsContext {
  db: Database;
  clock: Clock;
}

/** The experiment's page in the web app, relative to the server's origin. */
export const experimentPath = (projectId: string, slug: string) => `/p/${encodeURIComponent(projectId)}/experiments/${encodeURIComponent(slug)}`;
