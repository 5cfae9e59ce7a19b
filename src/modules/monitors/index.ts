export { MonitorService, MONITOR_QUEUE, traceData, type MonitorDeps } from './service.ts';
export { monitorRoutes } from './routes.ts';
