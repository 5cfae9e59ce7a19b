export { buildMonitors, liveMonitors, monitorsTraceExtension, monitorsModule, type MonitorsModulePorts } from './module.ts';
export type { MonitorPorts, MonitorsContext, ThreadMonitor } from './context.ts';
export { BACKFILL_QUEUE, backfillJobPayload, MONITOR_QUEUE, monitorJobPayload, type MonitorJobPayload, THREAD_MONITOR_QUEUE, threadMonitorJobPayload } from './jobs.ts';
export { ENABLED_MONITORS_TTL_MS } from './use-cases/enabled-monitors.ts';
export { enqueueForTraces, runMonitorJob } from './use-cases/live-runs.ts';
export { listMonitors } from './use-cases/manage-monitors.ts';
export { traceData } from './trace-data.schema.ts';
