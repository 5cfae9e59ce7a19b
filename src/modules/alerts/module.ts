import type { FastifyInstance } from 'fastify';
import type { Database, Executor } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { JobQueue } from '../../platform/jobs/index.ts';
import type { Scheduler } from '../../platform/periodic.ts';
import { DELIVERY_QUEUE, deliveryJobPayload, runDelivery } from './channels.ts';
import type { AlertsContext } from './context.ts';
import { evaluateDueRules } from './evaluate-rules.ts';
import { reportRoutes } from './report-routes.ts';
import * as reportStore from './report-store.ts';
import { sendDueReports } from './reports.ts';
import { alertRoutes } from './routes.ts';
import * as store from './store.ts';

/** How often each process looks for ended windows: a notification leaves within this of its window's end. */
export const ALERTS_POLL_MS = 15_000;
/** How often each process looks for a report period due: a digest leaves within a minute of its hour. */
export const REPORTS_POLL_MS = 60_000;

export interface AlertsPorts extends Omit<AlertsContext, 'db' | 'clock'> {
  db: Database;
  clock: Clock;
}

/** What the alerts module offers the app: evaluation on demand (tests, operators) and project deletion. */
export interface Alerts {
  evaluateDue(): Promise<{ windows: number }>;
  /** Sends the reports whose period is due, each period once across processes. */
  sendDueReports(): Promise<{ sent: number }>;
  reportPeriodsSent(reportId: string): Promise<number>;
  windowsEvaluated(ruleId: string): Promise<number>;
  deleteProject(projectId: string, db: Executor): Promise<void>;
}

export function buildAlerts(ports: AlertsPorts): { ctx: AlertsContext; alerts: Alerts } {
  const ctx: AlertsContext = { ...ports };
  return {
    ctx,
    alerts: {
      evaluateDue: () => evaluateDueRules(ctx),
      sendDueReports: () => sendDueReports(ctx),
      reportPeriodsSent: (reportId) => reportStore.countPeriods(ctx.db.orm, reportId),
      windowsEvaluated: (ruleId) => store.countWindows(ctx.db.orm, ruleId),
      deleteProject: async (projectId, db) => {
        await store.deleteProjectRules(db, projectId);
        await reportStore.deleteProjectReports(db, projectId);
        await store.deleteProjectChannels(db, projectId);
      },
    },
  };
}

/**
 * The alerts module's one entry: its routes, its schedule (every process polls; each window is
 * claimed once) and its delivery queue (each message claimed once, retried with backoff).
 */
export function registerAlerts(app: FastifyInstance, scheduler: Scheduler, jobs: JobQueue, ctx: AlertsContext, alerts: Alerts, pollMs = ALERTS_POLL_MS): void {
  alertRoutes(app, ctx);
  reportRoutes(app, ctx);
  jobs.handle(DELIVERY_QUEUE, deliveryJobPayload, (job) => runDelivery(ctx, job));
  // 0 (SPYGLASS_ALERT_POLL_SECONDS): this process leaves rules and reports to the others.
  if (pollMs === 0) return;
  scheduler.every({ name: 'alert rules', intervalMs: pollMs, once: false, run: () => alerts.evaluateDue() });
  scheduler.every({ name: 'alert reports', intervalMs: pollMs * (REPORTS_POLL_MS / ALERTS_POLL_MS), once: false, run: () => alerts.sendDueReports() });
}
