import type { FastifyInstance } from 'fastify';
import type { Executor } from '../../db/index.ts';
import type { Analytics } from '../analytics/index.ts';
import type { DashboardsContext } from './context.ts';
import { dashboardRoutes } from './routes.ts';
import * as store from './store.ts';

/** What the dashboards module offers the app: project deletion. */
export interface Dashboards {
  deleteProject(projectId: string, db: Executor): Promise<void>;
}

/** What the dashboards module is given (app.ts): its database and clock, the analytics module whose series every chart reads, and projects' deletion. */
export interface DashboardsPorts extends Omit<DashboardsContext, 'series'> {
  analytics: Pick<Analytics, 'timeseries'>;
  /** The organizations module: a deleted project's dashboards go in its transaction. */
  projects: { onProjectDeleted(listener: (tx: Executor, projectId: string) => Promise<void>): void };
}

/** The dashboards module's one entry: its routes, what goes with a deleted project, and what it offers the app. */
export function registerDashboards(app: FastifyInstance, { analytics, projects, ...rest }: DashboardsPorts): Dashboards {
  const ctx: DashboardsContext = { ...rest, series: (projectId, request) => analytics.timeseries(projectId, request) };
  dashboardRoutes(app, ctx);
  const dashboards: Dashboards = { deleteProject: (projectId, db) => store.deleteProjectDashboards(db, projectId) };
  projects.onProjectDeleted((tx, projectId) => dashboards.deleteProject(projectId, tx));
  return dashboards;
}
