import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Keyring } from '../../platform/crypto.ts';

/** What the agent cache's use cases work with (built by module.ts). */
export interface AgentCacheContext {
  db: Database;
  clock: Clock;
  /** Values are sealed with the project id and the name as associated data. */
  keyring: Keyring;
}
