export { AnalyticsService, type AnalyticsDeps } from './service.ts';
export { analyticsRoutes } from './routes.ts';
