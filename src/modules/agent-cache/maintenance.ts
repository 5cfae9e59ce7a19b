import type { AgentCacheContext } from './context.ts';
import * as store from './store.ts';

/** Deletes every expired entry (the background sweep; reads never depend on it). Returns how many. */
export function sweepExpired(ctx: AgentCacheContext): Promise<number> {
  return store.deleteExpired(ctx.db.orm, ctx.clock.now());
}

/**
 * `spyglass keys rotate-encryption`: seals every value not sealed with the keyring's
 * current key again under it, a batch at a time. Expired entries are deleted first
 * (nobody can read them). A value written meanwhile by a server is left as that server
 * wrote it. Returns how many values were sealed again.
 */
export async function resealAll(ctx: AgentCacheContext, batchSize = 500): Promise<number> {
  await sweepExpired(ctx);
  const current = ctx.keyring.currentKeyId;
  let after: { projectId: string; name: string } | null = null;
  let resealed = 0;
  for (;;) {
    const batch = await store.sealedWithOtherKeys(ctx.db.orm, current, after, batchSize);
    if (batch.length === 0) return resealed;
    await ctx.db.orm.transaction(async (tx) => {
      for (const row of batch) {
        const value = ctx.keyring.open({ keyId: row.keyId, sealed: row.sealed }, [row.projectId, row.name]);
        const next = ctx.keyring.seal(value, [row.projectId, row.name]);
        if (await store.replaceSealed(tx, row, next)) resealed++;
      }
    });
    after = batch[batch.length - 1];
  }
}
