import type { Database } from '../../db/index.ts';
import type { SealedKind } from '../../platform/sealed-kinds.ts';
import { sealedHeaderKeyCounts } from './sealed-headers-store.ts';
import * as store from './store.ts';
import { TargetHeaders } from './target-headers.ts';

/**
 * `spyglass keys rotate-encryption`: every HTTP target's headers, in definitions and in the
 * plans runs keep, sealed again under the keyring's first key. Answers how many target header
 * sets it re-sealed.
 */
export async function resealTargetHeaders(db: Database, headers: TargetHeaders): Promise<number> {
  return db.orm.transaction(async (tx) => {
    let resealed = 0;
    for (const holder of await store.sealedHeaderHolders(tx)) {
      let changed = false;
      const targets = (holder.doc.targets ?? []).map((t) => {
        const next = t.sealed_headers ? headers.reseal(holder.experimentId, t.id, t.sealed_headers) : null;
        if (!next) return t;
        changed = true;
        resealed++;
        return { ...t, sealed_headers: next };
      });
      if (changed) await store.replaceSealedHeaderHolder(tx, holder.kind, holder.experimentId, holder.runId, { ...holder.doc, targets });
    }
    return resealed;
  });
}

/** HTTP targets' headers as the key tools count them. */
export const sealedTargetHeaders: SealedKind = {
  one: "experiment target's headers",
  many: "experiment targets' headers",
  countByKey: sealedHeaderKeyCounts,
  reseal: ({ db, keyring }) => resealTargetHeaders(db, new TargetHeaders(keyring)),
};
