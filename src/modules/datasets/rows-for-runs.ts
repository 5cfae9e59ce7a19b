import type { Executor } from '../../db/index.ts';
import { AppError, badRequest } from '../../platform/errors.ts';
import { WALK_BATCH } from './read-dataset.ts';
import * as store from './store.ts';

/** What an experiment needs to know of a dataset it runs on. */
export interface DatasetForRuns {
  id: string;
  slug: string;
  name: string;
  /** The dataset's current version. */
  version: number;
  columns: { name: string; type: string }[];
}

/** A live dataset of the project by slug or id (404 dataset_not_found naming `field`). */
export async function datasetForRuns(db: Executor, projectId: string, slugOrId: string, field = 'dataset'): Promise<DatasetForRuns> {
  const d = await store.findLive(db, projectId, slugOrId);
  if (!d) throw new AppError(404, 'dataset_not_found', `${field}: no dataset "${slugOrId}" in this project`, { field });
  return { id: d.id, slug: d.slug, name: d.name, version: d.version, columns: d.columnTypes };
}

/** The name of a dataset that may since have been deleted (archived); null for an id the project never had. */
export function datasetName(db: Executor, projectId: string, id: string): Promise<string | null> {
  return store.nameById(db, projectId, id);
}

/** The columns of a dataset as of `version` (400 naming `field` for a version it never had). */
export async function columnsAsOf(db: Executor, d: DatasetForRuns, version: number, field: string): Promise<{ name: string; type: string }[]> {
  if (!Number.isInteger(version) || version < 0 || version > d.version) {
    throw badRequest('validation_error', `${field}: dataset "${d.slug}" has versions 0..${d.version}`, field);
  }
  if (version === d.version) return d.columns;
  return (await store.versionRow(db, d.id, version))?.columnTypes ?? [];
}

/** Every record's entry as of `version`, oldest first (the rows a run evaluates). */
export async function entriesAsOf(db: Executor, datasetId: string, version: number): Promise<Record<string, unknown>[]> {
  const entries: Record<string, unknown>[] = [];
  for (let after = -1; ; ) {
    const batch = await store.recordsAfter(db, datasetId, version, after, WALK_BATCH);
    for (const r of batch) entries.push(store.entryOf(r));
    if (batch.length < WALK_BATCH) break;
    after = batch[batch.length - 1].position;
  }
  return entries;
}
