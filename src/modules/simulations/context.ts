import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Redactor } from '../privacy/index.ts';

/** What the simulations module needs: its database, the clock, and the project's privacy at ingest. */
export interface SimulationsContext {
  db: Database;
  clock: Clock;
  redactor?: (projectId: string, path: string) => Promise<Pick<Redactor, 'active' | 'value' | 'take'>>;
}
