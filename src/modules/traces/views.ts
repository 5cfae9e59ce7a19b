import { conflict, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import * as store from './store.ts';
import { traceViewPresenter } from './presenters.ts';
import type { TraceContext } from './context.ts';
import type { createViewBody, updateViewBody } from './schemas.ts';
import type { z } from 'zod';

export type CreateViewInput = z.output<typeof createViewBody>;
export type UpdateViewInput = z.output<typeof updateViewBody>;

const taken = (name: string) => conflict('view_name_taken', `name: the project already has a view named "${name}"`, 'name');
const missing = (id: string) => notFound('view_not_found', `no saved view ${id} in this project`);

/**
 * Saved views of the traces list, shared with everyone in the project: a name, the list's
 * search (query, filters, sort as its URL parameters) and the columns in order. Names are
 * unique per project (two views of one name would be told apart by nobody).
 */

export async function listViews(ctx: TraceContext, projectId: string) {
  return { data: (await store.listViews(ctx.db.orm, projectId)).map(traceViewPresenter) };
}

export async function createView(ctx: TraceContext, projectId: string, userId: string | null, body: CreateViewInput) {
  const now = ctx.clock.now().getTime();
  try {
    const row = await store.insertView(ctx.db.orm, {
      id: newId('view'),
      projectId,
      name: body.name,
      search: body.search,
      columns: body.columns,
      createdBy: userId,
      createdAt: now,
      updatedAt: now,
    });
    return traceViewPresenter(row);
  } catch (err) {
    if (store.isUniqueViolation(err)) throw taken(body.name);
    throw err;
  }
}

export async function updateView(ctx: TraceContext, projectId: string, id: string, body: UpdateViewInput) {
  const set = {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.search !== undefined ? { search: body.search } : {}),
    ...(body.columns !== undefined ? { columns: body.columns } : {}),
    updatedAt: ctx.clock.now().getTime(),
  };
  try {
    const row = await store.updateView(ctx.db.orm, projectId, id, set);
    if (!row) throw missing(id);
    return traceViewPresenter(row);
  } catch (err) {
    if (body.name !== undefined && store.isUniqueViolation(err)) throw taken(body.name);
    throw err;
  }
}

export async function deleteView(ctx: TraceContext, projectId: string, id: string) {
  if (!(await store.deleteView(ctx.db.orm, projectId, id))) throw missing(id);
  return { id, deleted: true as const };
}
