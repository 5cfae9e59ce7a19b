import type { SpyglassModule } from '../../platform/module.ts';
import type { Executor } from '../../db/index.ts';
import type { Analytics } from '../analytics/index.ts';
import type { DashboardsContext } from './context.ts';
import { dashboardRoutes } from './routes.ts';
import * as store from './store.ts';

/** What the dashboards module reads of the ports map: the analytics module whose series every chart reads, and projects' deletion (organizations). */
export interface DashboardsPorts {
  analytics: Pick<Analytics, 'timeseries'>;
  /** A deleted project's dashboards go in its transaction. */
  organizations: { onProjectDeleted(listener: (tx: Executor, projectId: string) => Promise<void>): void };
}

/** The dashboards module's one entry: its routes and what goes with a deleted project. */
export const dashboardsModule: SpyglassModule<DashboardsPorts> = {
  name: 'dashboards',
  register: ({ http, db, clock }, { analytics, organizations }) => {
    const ctx: DashboardsContext = { db, clock, series: (projectId, request) => analytics.timeseries(projectId, request) };
    dashboardRoutes(http, ctx);
    organizations.onProjectDeleted((tx, projectId) => store.deleteProjectDashboards(tx, projectId));
  },
};
