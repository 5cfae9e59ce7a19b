import { badRequest, notFound, preconditionFailed } from '../../../platform/errors.ts';
import { newId } from '../../../platform/ids.ts';
import type { ProjectScope } from '../../../platform/http/route-group.ts';
import { userEmail } from '../../organizations/index.ts';
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
 * The version an If-Match header names: `"3"`, `W/"3"` or `3` (the ETag GET and PUT answer);
 * `*` or no header: any version. Several values: the request may go ahead over any of them.
 */
export function parseIfMatch(header: string | undefined): number[] | null {
  if (header === undefined || header.trim() === '*' || header.trim() === '') return null;
  const versions = header.split(',').map((v) => v.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1'));
  if (!versions.every((v) => /^\d{1,9}$/.test(v))) throw badRequest('invalid_if_match', 'If-Match: the dashboard\'s version as its ETag gives it, e.g. "3"', 'If-Match');
  return versions.map(Number);
}

/**
 * Replaces a dashboard's whole definition, or makes it under this id (a dashboard kept in git
 * is put back as it is, wherever it goes); `default` saves the project's own default dashboard.
 * With `ifMatch` (the version the editor read), only over that version: someone else's save in
 * between is a 412 saying who and when, never silently overwritten.
 */
export async function putDashboard(ctx: DashboardsContext, scope: ProjectScope, id: string, definition: DashboardDefinition, ifMatch: number[] | null = null): Promise<DashboardView> {
  const exists = await store.findDashboard(ctx.db.orm, scope.projectId, id);
  if (!exists && id !== DEFAULT_DASHBOARD_ID && (await store.countDashboards(ctx.db.orm, scope.projectId)) >= MAX_DASHBOARDS) {
    throw badRequest('too_many_dashboards', `body: a project keeps at most ${MAX_DASHBOARDS} dashboards; delete one first`, 'body');
  }
  if (ifMatch === null) return write(ctx, scope, id, definition);
  const current = exists?.version ?? (id === DEFAULT_DASHBOARD_ID ? 0 : null);
  const expected = current !== null && ifMatch.includes(current) ? current : null;
  const row =
    expected === null
      ? null
      : await store.saveDashboardIfVersion(ctx.db.orm, { ...rowOf(ctx, scope, id, definition), expected });
  if (row) return presentDashboard(row);
  const now = await store.findDashboard(ctx.db.orm, scope.projectId, id);
  if (!now && id !== DEFAULT_DASHBOARD_ID) throw preconditionFailed('dashboard_changed', `If-Match: dashboard ${id} was deleted after you read it`, { field: 'If-Match', version: null });
  const version = now?.version ?? 0;
  // Read by people: the UTC time to the second, not an ISO timestamp (the meta carries the number).
  const when = now ? `${new Date(now.updated_at).toISOString().slice(0, 19).replace('T', ' ')} UTC` : null;
  // Who: the member's e-mail (a save with an API key has no one to name).
  const email = now?.updated_by ? await userEmail(ctx.db.orm, now.updated_by) : null;
  throw preconditionFailed(
    'dashboard_changed',
    `If-Match: this dashboard was saved by ${email ?? 'someone else'}${when ? ` at ${when}` : ''} (version ${version}, you edited version ${ifMatch.join(', ')}); reload it to see their changes, then make yours again`,
    { field: 'If-Match', version, updatedAt: now?.updated_at ?? null, updatedBy: now?.updated_by ?? null, updatedByEmail: email },
  );
}

async function write(ctx: DashboardsContext, scope: ProjectScope, id: string, definition: DashboardDefinition): Promise<DashboardView> {
  return presentDashboard(await store.saveDashboard(ctx.db.orm, rowOf(ctx, scope, id, definition)));
}

/** What a save writes, with or without a version to match. */
const rowOf = (ctx: DashboardsContext, scope: ProjectScope, id: string, definition: DashboardDefinition) => ({
  organizationId: scope.organizationId,
  projectId: scope.projectId,
  id,
  name: definition.name,
  definition,
  userId: scope.userId,
  now: ctx.clock.now().getTime(),
});

/** Deletes a dashboard; deleting the default one brings back the built-in default. */
export async function deleteDashboard(ctx: DashboardsContext, projectId: string, id: string): Promise<{ id: string; deleted: true }> {
  if (!(await store.deleteDashboard(ctx.db.orm, projectId, id))) throw notFound('dashboard_not_found', `No dashboard ${id} in this project`);
  return { id, deleted: true };
}
