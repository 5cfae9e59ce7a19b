export { AnalyticsService, type AnalyticsDeps, type GroupSums, type PeriodQuery, type WindowsQuery } from './service.ts';
export { analyticsRoutes } from './routes.ts';
