import type { Database, Executor } from '../db/index.ts';
import type { Clock } from './clock.ts';
import type { Keyring } from './crypto.ts';

/**
 * One kind of value sealed with the installation's keyring, as the module that owns it counts
 * it. The key tools (ops/key-changes.ts) list the kinds: a key stays recorded while any value
 * of any kind is sealed with it, and the rotation re-seals each kind through its module.
 */
export interface SealedKind {
  /** How the key tools name one value and several: "agent-cache value", "agent-cache values". */
  one: string;
  many: string;
  /** Values of this kind per id of the key that seals them. */
  countByKey(db: Executor): Promise<{ key_id: string; n: number }[]>;
  /** `spyglass keys rotate-encryption`: every value of this kind sealed again under the keyring's first key; how many were. */
  reseal(installation: { db: Database; clock: Clock; keyring: Keyring }): Promise<number>;
}
