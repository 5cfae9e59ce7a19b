export { dashboardsModule, type DashboardsPorts } from './module.ts';
export { chartDataBody, chartDataSchema, chartParams, dashboardSchema, type ChartData } from './schemas.ts';
