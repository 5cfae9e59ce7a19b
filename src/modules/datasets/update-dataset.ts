import { emitDatasetEvent, requireDataset, type DatasetDeps, type Scope } from './context.ts';
import { convertValue } from './convert.ts';
import { slugConflict, slugOf } from './create-dataset.ts';
import { presentDataset } from './presenters.ts';
import { WALK_BATCH } from './read-dataset.ts';
import type { Column, UpdateDatasetBody } from './schemas.ts';
import * as store from './store.ts';
import type { Executor } from '../../db/index.ts';
import type { DatasetRow } from './store.ts';

const sameColumns = (a: Column[], b: Column[]) => a.length === b.length && a.every((c, i) => c.name === b[i].name && c.type === b[i].type);

/** An entry moved onto new columns: kept by name (converted when the type changed), dropped, or null when new. */
export function rewriteEntry(entry: Record<string, unknown>, from: Column[], to: Column[]): Record<string, unknown> {
  const before = new Map(from.map((c) => [c.name, c.type]));
  const out: Record<string, unknown> = {};
  for (const c of to) {
    const value = entry[c.name];
    if (value === undefined) out[c.name] = null;
    else out[c.name] = before.get(c.name) === c.type ? value : convertValue(value, c.type);
  }
  return out;
}

/**
 * Rename (a new slug; 409 if another live dataset holds it) and/or new columns (every
 * record rewritten onto them in one new version). An empty body changes nothing.
 */
export async function updateDataset(deps: DatasetDeps, scope: Scope, slugOrId: string, body: UpdateDatasetBody) {
  const now = deps.clock.now();
  const row = await deps.db.orm.transaction(async (tx) => {
    let d = await requireDataset(tx, scope, slugOrId, true);
    const set: Parameters<typeof store.updateDataset>[2] = {};
    if (body.name !== undefined && body.name !== d.name) {
      const slug = slugOf(body.name);
      if (slug !== d.slug) {
        const holder = await store.slugHolder(tx, scope.projectId, slug);
        if (holder && holder.id !== d.id) throw slugConflict(slug);
      }
      Object.assign(set, { name: body.name, slug });
    }
    const from = d.columnTypes as Column[];
    const columnsChange = body.columnTypes !== undefined && !sameColumns(from, body.columnTypes);
    if (columnsChange) set.columnTypes = body.columnTypes;
    if (!Object.keys(set).length) return d;
    try {
      d = await store.updateDataset(tx, d.id, { ...set, updatedAt: now });
    } catch (err) {
      if (store.isUniqueViolation(err)) throw slugConflict(set.slug ?? d.slug);
      throw err;
    }
    if (columnsChange && d.recordCount > 0) {
      await rewriteRecords(tx, scope, d, from, body.columnTypes!, now);
      d = (await store.findLive(tx, scope.projectId, d.id))!;
    } else {
      await emitDatasetEvent(tx, scope, 'dataset.updated', d, now, { version: d.version, change: set.columnTypes ? 'columns_changed' : 'renamed' });
    }
    return d;
  });
  return presentDataset(row, scope.linkBase);
}

/** Every live record onto new columns, batch by batch, as one version. */
async function rewriteRecords(tx: Executor, scope: Scope, d: DatasetRow, from: Column[], to: Column[], now: Date) {
  const { version } = await store.beginVersion(tx, d.id, 0, now);
  let count = 0;
  for (let after = -1; ; ) {
    const batch = await store.recordsAfter(tx, d.id, null, after, WALK_BATCH);
    if (!batch.length) break;
    await store.endRecords(
      tx,
      d.id,
      batch.map((r) => r.id),
      version,
    );
    await store.insertRecords(
      tx,
      { datasetId: d.id, projectId: scope.projectId, version, firstPosition: 0, now },
      batch.map((r) => ({ id: r.id, entry: rewriteEntry(store.entryOf(r), from, to), position: r.position, createdAt: r.createdAt })),
    );
    count += batch.length;
    after = batch[batch.length - 1].position;
  }
  const recordCount = await store.endVersion(tx, { datasetId: d.id, version, change: 'columns_changed', added: 0, updated: count, removed: 0, columnTypes: to, now });
  await emitDatasetEvent(tx, scope, 'dataset.updated', { ...d, version }, now, { version, change: 'columns_changed', added: 0, updated: count, removed: 0, recordCount });
}

/** DELETE archives: the dataset leaves every listing and lookup, and its slug is free again. */
export async function archiveDataset(deps: DatasetDeps, scope: Scope, slugOrId: string) {
  const now = deps.clock.now();
  return deps.db.orm.transaction(async (tx) => {
    const d = await requireDataset(tx, scope, slugOrId, true);
    const archived = await store.updateDataset(tx, d.id, { archivedAt: now, updatedAt: now });
    await emitDatasetEvent(tx, scope, 'dataset.deleted', archived, now);
    return { id: d.id, archived: true as const };
  });
}
