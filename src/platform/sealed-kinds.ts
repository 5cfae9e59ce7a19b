import type { Executor } from '../db/index.ts';

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
}
