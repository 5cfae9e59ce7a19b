import { DEFAULT_DASHBOARD, DEFAULT_DASHBOARD_ID } from './default-dashboard.ts';
import type { DashboardDefinition, DashboardView, dashboardListSchema } from './schemas.ts';
import type { DashboardRow } from './store.ts';
import type { z } from 'zod';

type ListItem = z.output<typeof dashboardListSchema>['data'][number];

export function presentDashboard(r: DashboardRow): DashboardView {
  return { id: r.id, definition: r.definition as DashboardDefinition, builtIn: false, version: r.version, createdAt: r.created_at, updatedAt: r.updated_at, updatedBy: r.updated_by };
}

export function presentBuiltIn(): DashboardView {
  return { id: DEFAULT_DASHBOARD_ID, definition: DEFAULT_DASHBOARD, builtIn: true, version: 0, createdAt: null, updatedAt: null, updatedBy: null };
}

export function presentListItem(d: DashboardView): ListItem {
  return { id: d.id, name: d.definition.name, description: d.definition.description ?? null, charts: d.definition.charts.length, builtIn: d.builtIn, updatedAt: d.updatedAt };
}
