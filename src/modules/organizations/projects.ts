import { type Executor } from '../../db/index.ts';
import { type Principal } from '../../platform/auth/index.ts';
import { notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { IssuedKey, OrganizationsContext } from './context.ts';
import { presentProject, type ProjectView } from './presenters.ts';
import * as store from './store.ts';

/** Runs `listener` in the transaction that deletes a project (other modules delete what they own of it). */
export function onProjectDeleted(ctx: OrganizationsContext, listener: (tx: Executor, projectId: string) => Promise<void>) {
  ctx.projectDeletedListeners.push(listener);
}
/** The projects of the organization this key can see. */
export async function listProjects(ctx: OrganizationsContext, principal: Principal): Promise<ProjectView[]> {
  const all = await store.listProjects(ctx.db.orm, principal.organizationId);
  return all.filter((p) => principal.projectPermissions(p.id).has('project:view')).map(presentProject);
}
export async function getProject(ctx: OrganizationsContext, principal: Principal, id: string): Promise<ProjectView> {
  const p = await store.findProject(ctx.db.orm, principal.organizationId, id);
  if (!p) throw notFound('project_not_found', `no project ${id} in this organization`);
  return presentProject(p);
}
export async function createProject(
  ctx: OrganizationsContext,
  principal: Principal,
  input: { name: string; retentionDays?: number | null },
): Promise<{ project: ProjectView } & IssuedKey> {
  return ctx.db.orm.transaction(async (tx) => {
    const at = ctx.clock.now();
    const row = await store.insertProject(tx, {
      id: newId('proj'),
      organizationId: principal.organizationId,
      name: input.name,
      retentionDays: input.retentionDays ?? null,
      createdAt: at,
      updatedAt: at,
    });
    const key = await ctx.keys.mintProjectKey(tx, row);
    return { project: presentProject(row), ...key };
  });
}
export async function updateProject(ctx: OrganizationsContext, principal: Principal, id: string, patch: { name?: string; retentionDays?: number | null }) {
  const row = await store.updateProject(ctx.db.orm, principal.organizationId, id, { ...patch, updatedAt: ctx.clock.now() });
  if (!row) throw notFound('project_not_found', `no project ${id} in this organization`);
  return presentProject(row);
}
export async function deleteProject(ctx: OrganizationsContext, principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
  const deleted = await ctx.db.orm.transaction(async (tx) => {
    if (!(await store.deleteProject(tx, principal.organizationId, id))) return false;
    await ctx.keys.deleteProjectBindings(tx, id);
    for (const listener of ctx.projectDeletedListeners) await listener(tx, id);
    return true;
  });
  if (!deleted) throw notFound('project_not_found', `no project ${id} in this organization`);
  return { id, deleted: true };
}