export { MonitorService, MONITOR_QUEUE, ENABLED_MONITORS_TTL_MS, traceData, type MonitorDeps } from './service.ts';
export { monitorRoutes } from './routes.ts';
