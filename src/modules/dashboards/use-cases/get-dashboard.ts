import { notFound } from '../../../platform/errors.ts';
import type { DashboardsContext } from '../context.ts';
import { DEFAULT_DASHBOARD_ID } from '../default-dashboard.ts';
import { presentBuiltIn, presentDashboard } from '../presenters.ts';
import type { DashboardView } from '../schemas.ts';
import * as store from '../store.ts';

/** A dashboard's whole definition; the default one as built in until the project saves it. */
export async function getDashboard(ctx: DashboardsContext, projectId: string, id: string): Promise<DashboardView> {
  const row = await store.findDashboard(ctx.db.orm, projectId, id);
  if (row) return presentDashboard(row);
  if (id === DEFAULT_DASHBOARD_ID) return presentBuiltIn();
  throw notFound('dashboard_not_found', `No dashboard ${id} in this project`);
}
