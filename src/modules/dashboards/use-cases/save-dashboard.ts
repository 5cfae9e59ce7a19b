import { badRequest, notFound } from '../../../platform/errors.ts';
import { newId } from '../../../platform/ids.ts';
import type { ProjectScope } from '../../../platform/http/route-group.ts';
import type { DashboardsContext } from '../context.ts';
import { DEFAULT_DASHBOARD_ID } from '../default-dashboard.ts';
import { presentDashboard } from '../presenters.ts';
import type { DashboardDefinition, DashboardView } from '../schemas.ts';
import * as store from '../store.ts';

/** A project keeps at most this many dashboards. */
export const MAX_DASHBOARDS = 200;

/** A new dashboard from a whole definition (the schema checked charts, places and ranges). */
export async function createDashboard(ctx: DashboardsContext, scope: ProjectScope, definition: DashboardDefinition): Promise<DashboardView> {
  if ((await store.countDashboards(ctx.db.orm, scope.projectId)) >= MAX_DASHBOARDS) {
    throw badRequest('too_many_dashboards', `body: a project keeps at most ${MAX_DASHBOARDS} dashboards; delete one first`, 'body');
  }
  return write(ctx, scope, newId('dash'), definition);
}

/**
 * Replaces a dashboard's whole definition, or makes it under this id (a dashboard kept in git
 * is put back as it is, wherever it goes); `default` saves the project's own default dashboard.
 */
export async function putDashboard(ctx: DashboardsContext, scope: ProjectScope, id: string, definition: DashboardDefinition): Promise<DashboardView> {
  const exists = await store.findDashboard(ctx.db.orm, scope.projectId, id);
  if (!exists && id !== DEFAULT_DASHBOARD_ID && (await store.countDashboards(ctx.db.orm, scope.projectId)) >= MAX_DASHBOARDS) {
    throw badRequest('too_many_dashboards', `body: a project keeps at most ${MAX_DASHBOARDS} dashboards; delete one first`, 'body');
  }
  return write(ctx, scope, id, definition);
}

async function write(ctx: DashboardsContext, scope: ProjectScope, id: string, definition: DashboardDefinition): Promise<DashboardView> {
  const row = await store.saveDashboard(ctx.db.orm, {
    organizationId: scope.organizationId,
    projectId: scope.projectId,
    id,
    name: definition.name,
    definition,
    userId: scope.userId,
    now: ctx.clock.now().getTime(),
  });
  return presentDashboard(row);
}

/** Deletes a dashboard; deleting the default one brings back the built-in default. */
export async function deleteDashboard(ctx: DashboardsContext, projectId: string, id: string): Promise<{ id: string; deleted: true }> {
  if (!(await store.deleteDashboard(ctx.db.orm, projectId, id))) throw notFound('dashboard_not_found', `No dashboard ${id} in this project`);
  return { id, deleted: true };
}
