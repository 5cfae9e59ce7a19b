import { notFound } from '../../platform/errors.ts';
import { requireDataset, writeVersion, type DatasetDeps, type Scope } from './context.ts';

/**
 * DELETE records: counts those really removed; ids the dataset does not hold are skipped;
 * when none matched, 404 record_not_found (and no version is made).
 */
export async function deleteRecords(deps: DatasetDeps, scope: Scope, slugOrId: string, recordIds: string[]) {
  const now = deps.clock.now();
  return deps.db.orm.transaction(async (tx) => {
    const d = await requireDataset(tx, scope, slugOrId, true);
    const { ended } = await writeVersion(tx, scope, d, 'records_deleted', { end: [...new Set(recordIds)] }, now);
    // Thrown inside the transaction: the version begun above is rolled back with it.
    if (!ended.length) throw notFound('record_not_found', `none of the ${recordIds.length} record ids is a record of dataset "${d.slug}"`);
    return { deletedCount: ended.length };
  });
}
