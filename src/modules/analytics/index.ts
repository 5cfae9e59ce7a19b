export { AnalyticsService, type AnalyticsDeps, type GroupSums, type PeriodQuery } from './service.ts';
export { analyticsRoutes } from './routes.ts';
