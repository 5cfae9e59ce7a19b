export { buildAlerts, alertsModule, ALERTS_POLL_MS, type Alerts, type AlertsPorts } from './module.ts';
export { historyQuery, historyResponse, ruleSchema, type EvaluationView, type RuleView } from './schemas.ts';
