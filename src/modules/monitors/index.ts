export { MonitorService, MONITOR_QUEUE, monitorJobPayload, type MonitorJobPayload, THREAD_MONITOR_QUEUE, threadMonitorJobPayload, type ThreadMonitor, ENABLED_MONITORS_TTL_MS, type MonitorDeps } from './service.ts';
export { traceData } from './trace-data.schema.ts';
export { monitorRoutes } from './routes.ts';
export { BACKFILL_QUEUE, backfillJobPayload } from './backfill.ts';
