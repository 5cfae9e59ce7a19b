/**
 * `spyglass keys rotate-encryption`: the headers of every scenario's HTTP agent, in the scenarios
 * and in the plans their server runs keep, sealed again under the keyring's first key, as
 * experiments' targets' headers are. Answers how many header sets it re-sealed.
 */
import type { Database } from '../../db/index.ts';
import { TargetHeaders, type SealedHeaders } from '../experiments/index.ts';
import { HEADER_TARGET, headerOwner, type StoredAgentTarget } from './define-scenario.ts';
import type { RunPlan } from './start-batch.ts';
import type { SealedKind } from '../../platform/sealed-kinds.ts';
import * as store from './store.ts';

export async function resealAgentHeaders(db: Database, headers: TargetHeaders): Promise<number> {
  return db.orm.transaction(async (tx) => {
    let resealed = 0;
    const reseal = (scenarioId: string, target: StoredAgentTarget): StoredAgentTarget | null => {
      if (target.type !== 'http' || !target.sealed_headers) return null;
      const next: SealedHeaders | null = headers.reseal(headerOwner(scenarioId), HEADER_TARGET, target.sealed_headers);
      if (!next) return null;
      resealed++;
      return { ...target, sealed_headers: next };
    };
    for (const holder of await store.sealedHeaderHolders(tx)) {
      if (holder.kind === 'scenario') {
        const next = reseal(holder.id, holder.doc as StoredAgentTarget);
        if (next) await store.replaceSealedHeaderHolder(tx, 'scenario', holder.projectId, holder.id, next);
      } else {
        const plan = holder.doc as unknown as RunPlan;
        const next = reseal(plan.scenarioId, plan.target);
        if (next) await store.replaceSealedHeaderHolder(tx, 'plan', holder.projectId, holder.id, { ...plan, target: next });
      }
    }
    return resealed;
  });
}

/** Scenario agents' headers as the key tools count them. */
export const sealedAgentHeaders: SealedKind = {
  one: "scenario agent's headers",
  many: "scenario agents' headers",
  countByKey: store.sealedHeaderKeyCounts,
  reseal: ({ db, keyring }) => resealAgentHeaders(db, new TargetHeaders(keyring)),
};
