import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { TokenHasher } from '../../platform/tokens.ts';
import type { RecentKeys } from './key-cache.ts';
import type { Directory } from './types.ts';

/** What the api-keys use cases work with (built by module.ts). */
export interface ApiKeysContext {
  db: Database;
  clock: Clock;
  /** Secrets are stored as their keyed hash only. */
  hasher: TokenHasher;
  /** Memberships and projects, read through the organizations module. */
  directory: Directory;
  /** Project keys' rows read lately (resolve-key.ts, key-cache.ts). */
  recentKeys: RecentKeys;
}
