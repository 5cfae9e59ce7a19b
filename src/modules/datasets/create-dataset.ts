import type { Executor } from '../../db/index.ts';
import { badRequest, conflict } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { emitDatasetEvent, type DatasetDeps, type Scope } from './context.ts';
import { presentDataset } from './presenters.ts';
import type { Column, CreateDatasetBody } from './schemas.ts';
import { slugify } from '../../platform/slug.schema.ts';
import * as store from './store.ts';
import type { DatasetRow } from './store.ts';

/** The slug a name derives to; a name whose slug is empty is refused (spec, rule 8). */
export function slugOf(name: string, field = 'body.name'): string {
  const slug = slugify(name);
  if (!slug) throw badRequest('validation_error', `${field}: "${name}" has no letter or digit to make a slug from`, field);
  return slug;
}

export const slugConflict = (slug: string, field = 'body.name') =>
  conflict('slug_conflict', `${field}: a dataset with the slug "${slug}" already exists in this project`, field);

/** Inserts a dataset row (the caller's transaction); 409 when a live dataset holds its slug. */
export async function insertNewDataset(tx: Executor, scope: Scope, name: string, columnTypes: Column[], now: Date, field = 'body.name', emit = true): Promise<DatasetRow> {
  const slug = slugOf(name, field);
  if (await store.slugHolder(tx, scope.projectId, slug)) throw slugConflict(slug, field);
  let row: DatasetRow;
  try {
    row = await store.insertDataset(tx, { id: newId('dataset'), projectId: scope.projectId, name, slug, columnTypes, createdAt: now, updatedAt: now });
  } catch (err) {
    // Two creates racing for one slug: the unique index decides.
    if (store.isUniqueViolation(err)) throw slugConflict(slug, field);
    throw err;
  }
  if (emit) await emitDatasetEvent(tx, scope, 'dataset.created', row, now);
  return row;
}

export async function createDataset(deps: DatasetDeps, scope: Scope, body: CreateDatasetBody) {
  const now = deps.clock.now();
  const row = await deps.db.orm.transaction((tx) => insertNewDataset(tx, scope, body.name, body.columnTypes, now));
  return presentDataset(row, scope.linkBase);
}
