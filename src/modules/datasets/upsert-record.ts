import { entryRedaction, requireDataset, writeVersion, type DatasetDeps, type Scope } from './context.ts';
import { presentRecord } from './presenters.ts';
import * as store from './store.ts';

/**
 * PATCH one record: the entry replaces the stored one exactly as sent (no column check, no
 * null fill: LangWatch's behaviour). 200 when the record existed (it keeps its place in the
 * order), 201 when it was created under the caller's id.
 */
export async function upsertRecord(deps: DatasetDeps, scope: Scope, slugOrId: string, recordId: string, entry: Record<string, unknown>) {
  const now = deps.clock.now();
  const redacted = (await entryRedaction(deps, scope.projectId))(entry);
  return deps.db.orm.transaction(async (tx) => {
    const d = await requireDataset(tx, scope, slugOrId, true);
    const existed = (await store.liveRecord(tx, d.id, recordId)) !== null;
    const { added } = await writeVersion(tx, scope, d, existed ? 'record_updated' : 'records_added', { end: existed ? [recordId] : [], add: [{ id: recordId, entry: redacted }] }, now);
    return { created: !existed, record: presentRecord(added[0]) };
  });
}
