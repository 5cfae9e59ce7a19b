import { AppError } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { entryRedaction, requireDataset, writeVersion, type DatasetDeps, type Scope } from './context.ts';
import { presentRecord } from './presenters.ts';
import type { Column } from './schemas.ts';
import type { DatasetRow } from './store.ts';

/**
 * Every key of every entry must be a column (else 400 invalid_column naming the key and the
 * columns, and nothing is added); missing columns are stored as null. Answers the entries in
 * column order.
 */
export function fitEntries(d: DatasetRow, entries: Record<string, unknown>[], field = 'body.entries'): Record<string, unknown>[] {
  const columns = (d.columnTypes as Column[]).map((c) => c.name);
  const known = new Set(columns);
  return entries.map((entry, i) => {
    if (!columns.length) {
      throw new AppError(400, 'invalid_column', `${field}.${i}: dataset "${d.slug}" has no columns, so it accepts no entry; give it columns first (PATCH columnTypes)`, {
        field: `${field}.${i}`,
        meta: { columns },
      });
    }
    for (const key of Object.keys(entry)) {
      if (!known.has(key)) {
        throw new AppError(400, 'invalid_column', `${field}.${i}: "${key}" is not a column of dataset "${d.slug}"; its columns are ${columns.map((c) => `"${c}"`).join(', ')}`, {
          field: `${field}.${i}.${key}`,
          meta: { column: key, columns },
        });
      }
    }
    const fitted: Record<string, unknown> = {};
    for (const c of columns) fitted[c] = entry[c] === undefined ? null : entry[c];
    return fitted;
  });
}

/** POST records (and the LW /entries route): 1..1000 entries, in the order sent, as one version. */
export async function addRecords(deps: DatasetDeps, scope: Scope, slugOrId: string, entries: Record<string, unknown>[]) {
  const now = deps.clock.now();
  const redact = await entryRedaction(deps, scope.projectId);
  const added = await deps.db.orm.transaction(async (tx) => {
    const d = await requireDataset(tx, scope, slugOrId, true);
    const fitted = fitEntries(d, entries);
    const result = await writeVersion(tx, scope, d, 'records_added', { add: fitted.map((entry) => ({ id: newId('record'), entry: redact(entry) })) }, now);
    return result.added;
  });
  return { data: added.map(presentRecord) };
}
