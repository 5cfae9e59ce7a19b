import type { FastifyInstance } from 'fastify';
import type { Executor } from '../../db/index.ts';
import type { DashboardsContext } from './context.ts';
import { dashboardRoutes } from './routes.ts';
import * as store from './store.ts';

/** What the dashboards module offers the app: project deletion. */
export interface Dashboards {
  deleteProject(projectId: string, db: Executor): Promise<void>;
}

/** The dashboards module's one entry: its routes, and what it offers the app. */
export function registerDashboards(app: FastifyInstance, ctx: DashboardsContext): Dashboards {
  dashboardRoutes(app, ctx);
  return { deleteProject: (projectId, db) => store.deleteProjectDashboards(db, projectId) };
}
