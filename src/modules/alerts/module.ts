import type { Database, Executor } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Mailer } from '../../platform/mail.ts';
import type { SpyglassModule } from '../../platform/module.ts';
import type { Analytics } from '../analytics/index.ts';
import type { Annotations } from '../annotations/index.ts';
import { findEvaluator } from '../evaluators/index.ts';
import type { JudgeTrustPort } from '../judge-alignment/index.ts';
import { listMonitors, type MonitorsContext } from '../monitors/index.ts';
import { threadResultsExist, threadResultWindows } from '../threads/index.ts';
import { checkHost, deliver, hostOf } from '../webhooks/index.ts';
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

/** What the alerts module is given (app.ts): the modules whose data rules and reports read, where messages go, and projects' deletion. */
export interface AlertsPorts {
  db: Database;
  clock: Clock;
  /** Sums, values, evaluations and scores of periods and their windows. */
  analytics: Pick<Analytics, 'periodSums' | 'periodValues' | 'periodEvaluations' | 'windowSums' | 'windowValues' | 'windowEvaluations' | 'windowScores'>;
  /** Monitors: an evaluation's name stands for a monitor's evaluator. */
  monitors: MonitorsContext;
  scoreConfigs: Pick<Annotations['scoreConfigs'], 'list'>;
  /** Whether a judge can be trusted (the judge alignment module). */
  judges: JudgeTrustPort;
  /** Where links in messages point (SPYGLASS_PUBLIC_URL); null: links relative to the app. */
  publicUrl: string | null;
  /** The server's SMTP mailer; null: e-mail channels cannot be made. */
  mailer: Mailer | null;
  /** The webhook policy for private addresses (SPYGLASS_WEBHOOKS_ALLOW_PRIVATE), which receivers of alerts follow too. */
  allowPrivateDestinations: boolean;
  /** The organizations module: a deleted project's rules, reports and channels go in its transaction. */
  projects: { onProjectDeleted(listener: (tx: Executor, projectId: string) => Promise<void>): void };
}

/** The alerts module's context over the ports other modules offer. */
function alertsContext(ports: AlertsPorts): AlertsContext {
  const { db, clock, analytics, monitors, scoreConfigs, judges, allowPrivateDestinations } = ports;
  return {
    db,
    clock,
    periodSums: (projectId, q) => analytics.periodSums(projectId, q),
    periodValues: (projectId, q) => analytics.periodValues(projectId, q),
    periodEvaluations: (projectId, q) => analytics.periodEvaluations(projectId, q),
    windowSums: (projectId, q) => analytics.windowSums(projectId, q),
    windowValues: (projectId, q) => analytics.windowValues(projectId, q),
    windowEvaluations: (projectId, q) => analytics.windowEvaluations(projectId, q),
    windowScores: (projectId, q) => analytics.windowScores(projectId, q),
    windowThreadEvaluations: (projectId, q) => threadResultWindows(db, projectId, q),
    threadEvaluatorKnown: async (projectId, name) => (await listMonitors(monitors, projectId)).some((m) => m.unit === 'thread' && (m.name === name || m.evaluator === name)) || threadResultsExist(db, projectId, name),
    scoreConfig: async (projectId, id) => (await scoreConfigs.list(projectId)).find((c) => c.id === id) ?? null,
    // a monitor's name stands for its evaluator: trust is measured on the evaluator's results
    judgeTrust: async (projectId, nameOrPath) => {
      const monitor = (await listMonitors(monitors, projectId)).find((m) => m.name === nameOrPath);
      return judges.trustOf(projectId, { evaluator: monitor?.evaluator ?? nameOrPath, version: null });
    },
    evaluatorKnown: async (projectId, name) => !!findEvaluator(name) || (await listMonitors(monitors, projectId)).some((m) => m.name === name || m.evaluator === name),
    publicUrl: ports.publicUrl,
    mailer: ports.mailer,
    postJson: async (url, body) => deliver({ url, headers: {}, body: JSON.stringify(body), timeoutMs: 10_000, allowPrivateDestinations }).then((r) => ({ error: r.error })),
    checkDestination: async (url) => {
      if (!allowPrivateDestinations) await checkHost(hostOf(new URL(url)));
    },
  };
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
  const ctx = alertsContext(ports);
  const alerts: Alerts = {
    evaluateDue: () => evaluateDueRules(ctx),
    sendDueReports: () => sendDueReports(ctx),
    reportPeriodsSent: (reportId) => reportStore.countPeriods(ctx.db.orm, reportId),
    windowsEvaluated: (ruleId) => store.countWindows(ctx.db.orm, ruleId),
    deleteProject: async (projectId, db) => {
      await store.deleteProjectRules(db, projectId);
      await reportStore.deleteProjectReports(db, projectId);
      await store.deleteProjectChannels(db, projectId);
    },
  };
  ports.projects.onProjectDeleted((tx, projectId) => alerts.deleteProject(projectId, tx));
  return { ctx, alerts };
}

/**
 * The alerts module's one entry: its routes, its schedule (every process polls; each window is
 * claimed once) and its delivery queue (each message claimed once, retried with backoff).
 */
export const alertsModule: SpyglassModule<{ alerts: { ctx: AlertsContext; alerts: Alerts } }> = {
  name: 'alerts',
  register: ({ http, scheduler, jobs, config }, { alerts: { ctx, alerts } }) => {
    alertRoutes(http, ctx);
    reportRoutes(http, ctx);
    jobs.handle(DELIVERY_QUEUE, deliveryJobPayload, (job) => runDelivery(ctx, job));
    // 0 (SPYGLASS_ALERT_POLL_SECONDS): this process leaves rules and reports to the others.
    const pollMs = config.intervals.alertPollMs;
    if (pollMs === 0) return;
    scheduler.every({ name: 'alert rules', intervalMs: pollMs, once: false, run: () => alerts.evaluateDue() });
    scheduler.every({ name: 'alert reports', intervalMs: pollMs * (REPORTS_POLL_MS / ALERTS_POLL_MS), once: false, run: () => alerts.sendDueReports() });
  },
};
