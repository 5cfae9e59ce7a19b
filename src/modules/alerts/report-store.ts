import { sql } from 'drizzle-orm';
import { jsonParam, rows, type Executor } from '../../db/index.ts';

/** A report (migrations/0042_alert_reports.sql): a project's digest, its cadence, time zone and where it goes. */
export interface ReportRow {
  id: string;
  organization_id: string;
  project_id: string;
  name: string;
  cadence: 'daily' | 'weekly';
  time_zone: string;
  send_hour: number;
  channel_ids: string[];
  webhooks: boolean;
  enabled: boolean;
  created_at: number;
  updated_at: number;
}

const COLUMNS = sql.raw(`id, organization_id, project_id, name, cadence, time_zone, send_hour, channel_ids, webhooks, enabled, created_at, updated_at`);
const toRow = (r: ReportRow): ReportRow => ({ ...r, send_hour: Number(r.send_hour), created_at: Number(r.created_at), updated_at: Number(r.updated_at) });

export async function insertReport(db: Executor, r: ReportRow): Promise<void> {
  await db.execute(sql`INSERT INTO alert_reports (${COLUMNS}) VALUES (${r.id}, ${r.organization_id}, ${r.project_id}, ${r.name}, ${r.cadence}, ${r.time_zone}, ${r.send_hour},
    ${jsonParam(r.channel_ids)}::jsonb, ${r.webhooks}, ${r.enabled}, ${r.created_at}, ${r.updated_at})`);
}

export async function updateReport(db: Executor, r: ReportRow): Promise<void> {
  await db.execute(sql`UPDATE alert_reports SET name = ${r.name}, cadence = ${r.cadence}, time_zone = ${r.time_zone}, send_hour = ${r.send_hour},
    channel_ids = ${jsonParam(r.channel_ids)}::jsonb, webhooks = ${r.webhooks}, enabled = ${r.enabled}, updated_at = ${r.updated_at}
    WHERE project_id = ${r.project_id} AND id = ${r.id}`);
}

export async function listReports(db: Executor, projectId: string): Promise<ReportRow[]> {
  return (await rows<ReportRow>(db, sql`SELECT ${COLUMNS} FROM alert_reports WHERE project_id = ${projectId} ORDER BY created_at, id`)).map(toRow);
}

export async function findReport(db: Executor, projectId: string, id: string): Promise<ReportRow | null> {
  const [r] = await rows<ReportRow>(db, sql`SELECT ${COLUMNS} FROM alert_reports WHERE project_id = ${projectId} AND id = ${id}`);
  return r ? toRow(r) : null;
}

export async function deleteReport(db: Executor, projectId: string, id: string): Promise<boolean> {
  return (await rows(db, sql`DELETE FROM alert_reports WHERE project_id = ${projectId} AND id = ${id} RETURNING id`)).length > 0;
}

export async function deleteProjectReports(db: Executor, projectId: string): Promise<void> {
  await db.execute(sql`DELETE FROM alert_reports WHERE project_id = ${projectId}`);
}

/** Every enabled report of every project: the scheduler decides which have a period due. */
export async function enabledReports(db: Executor): Promise<ReportRow[]> {
  return (await rows<ReportRow>(db, sql`SELECT ${COLUMNS} FROM alert_reports WHERE enabled ORDER BY id`)).map(toRow);
}

/** Whether a report's period was sent (claimed). */
export async function periodSent(db: Executor, reportId: string, periodEnd: number): Promise<boolean> {
  return (await rows(db, sql`SELECT 1 FROM alert_report_periods WHERE report_id = ${reportId} AND period_end = ${periodEnd}`)).length > 0;
}

/** Claims a report's period for this transaction: true for exactly one caller across every process (the primary key). */
export async function claimPeriod(tx: Executor, reportId: string, period: { start: number; end: number }, at: number): Promise<boolean> {
  const claimed = await rows(
    tx,
    sql`INSERT INTO alert_report_periods (report_id, period_end, period_start, sent_at) VALUES (${reportId}, ${period.end}, ${period.start}, ${at}) ON CONFLICT DO NOTHING RETURNING report_id`,
  );
  return claimed.length > 0;
}

/** Periods sent per report: what the exactly-once test counts. */
export async function countPeriods(db: Executor, reportId: string): Promise<number> {
  const [r] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM alert_report_periods WHERE report_id = ${reportId}`);
  return Number(r.n);
}

/** The alerts of a project that were firing in windows ending within (start, end]: per rule and segment, since when and for how many windows. */
export async function firedAlerts(db: Executor, projectId: string, start: number, end: number): Promise<{ rule: string; segment: string; since: number; windows: number }[]> {
  const found = await rows<{ rule: string; segment: string; since: number; windows: number }>(
    db,
    sql`SELECT r.name AS rule, e.segment, min(e.window_end) AS since, count(*)::int AS windows
        FROM alert_evaluations e JOIN alert_rules r ON r.id = e.rule_id
        WHERE r.project_id = ${projectId} AND e.state = 'firing' AND e.window_end > ${start} AND e.window_end <= ${end}
        GROUP BY 1, 2 ORDER BY 3, 1, 2`,
  );
  return found.map((f) => ({ ...f, since: Number(f.since), windows: Number(f.windows) }));
}
