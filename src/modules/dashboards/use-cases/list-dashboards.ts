import type { z } from 'zod';
import type { DashboardsContext } from '../context.ts';
import { DEFAULT_DASHBOARD_ID } from '../default-dashboard.ts';
import { presentBuiltIn, presentDashboard, presentListItem } from '../presenters.ts';
import type { dashboardListSchema } from '../schemas.ts';
import * as store from '../store.ts';

/** The project's dashboards, the default one first (built in or as saved), then by name. */
export async function listDashboards(ctx: DashboardsContext, projectId: string): Promise<z.output<typeof dashboardListSchema>> {
  const stored = (await store.listDashboards(ctx.db.orm, projectId)).map(presentDashboard);
  const saved = stored.find((d) => d.id === DEFAULT_DASHBOARD_ID);
  const rest = stored.filter((d) => d.id !== DEFAULT_DASHBOARD_ID);
  return { data: [saved ?? presentBuiltIn(), ...rest].map(presentListItem) };
}
