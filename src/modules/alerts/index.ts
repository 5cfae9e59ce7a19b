export { buildAlerts, registerAlerts, ALERTS_POLL_MS, type Alerts, type AlertsPorts } from './module.ts';
