import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';

/** What the simulations module needs: its database, the clock, and the project's privacy at ingest. */
export interface SimulationsContext {
  db: Database;
  clock: Clock;
  redactor?: (projectId: string, path: string) => Promise<ValueRedactor>;
}

/** What simulations use of a project's redaction (the privacy module's Redactor). */
export interface ValueRedactor {
  readonly active: boolean;
  value<T>(value: T, field: string): T;
  /** Ends one value: what was found is counted in /metrics. */
  take(): unknown;
}
