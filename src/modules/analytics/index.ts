export { buildAnalytics, analyticsModule, type Analytics } from './module.ts';
export type { AnalyticsPorts, GroupSums, PeriodQuery, WindowsQuery, ThreadSeriesQuery } from './context.ts';
