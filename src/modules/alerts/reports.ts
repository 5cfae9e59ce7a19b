import type { Executor } from '../../db/index.ts';
import { badRequest, notFound } from '../../platform/errors.ts';
import { emitEvents } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import { quantile } from '../experiments/index.ts';
import { queueMessages } from './channels.ts';
import type { AlertsContext } from './context.ts';
import * as reportStore from './report-store.ts';
import type { DigestView, ReportBody, ReportView } from './schemas.ts';
import { benjaminiHochberg, poissonTest, rankTest, twoProportionTest } from './statistics.ts';
import * as store from './store.ts';
import { isTimeZone, lastEndedPeriod, localDate, previousPeriod } from './zoned-time.ts';

/** A change in the digest is listed past this false-alarm budget, corrected across the digest's figures. */
const CHANGE_ALPHA = 0.01;
/** Values (latencies, scores) read per period; past it the percentiles and rank tests use the first ones found. */
const MAX_PERIOD_VALUES = 200_000;
/** Changes listed in a message, the biggest first. */
const MAX_CHANGES = 5;

const present = (r: reportStore.ReportRow): ReportView => ({
  id: r.id,
  name: r.name,
  cadence: r.cadence,
  timeZone: r.time_zone,
  sendHour: r.send_hour,
  channelIds: r.channel_ids,
  webhooks: r.webhooks,
  enabled: r.enabled,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

async function checkReport(ctx: AlertsContext, projectId: string, body: ReportBody): Promise<void> {
  if (!isTimeZone(body.timeZone)) throw badRequest('invalid_time_zone', `timeZone: ${body.timeZone} is not an IANA time zone (Europe/Paris, America/New_York, UTC)`, 'timeZone');
  const channels = new Set((await store.listChannels(ctx.db.orm, projectId)).map((c) => c.id));
  const unknown = body.channelIds.findIndex((id) => !channels.has(id));
  if (unknown >= 0) throw badRequest('unknown_channel', `channelIds.${unknown}: no alert channel ${body.channelIds[unknown]} in this project`, `channelIds.${unknown}`);
  if (!body.channelIds.length && !body.webhooks) throw badRequest('no_destination', 'channelIds: a report goes to at least one channel, or to the webhooks', 'channelIds');
}

export async function createReport(ctx: AlertsContext, scope: { organizationId: string; projectId: string }, body: ReportBody): Promise<ReportView> {
  await checkReport(ctx, scope.projectId, body);
  const now = ctx.clock.now().getTime();
  const row: reportStore.ReportRow = {
    id: newId('arp'),
    organization_id: scope.organizationId,
    project_id: scope.projectId,
    name: body.name,
    cadence: body.cadence,
    time_zone: body.timeZone,
    send_hour: body.sendHour,
    channel_ids: body.channelIds,
    webhooks: body.webhooks,
    enabled: body.enabled,
    created_at: now,
    updated_at: now,
  };
  await reportStore.insertReport(ctx.db.orm, row);
  return present(row);
}

async function find(ctx: AlertsContext, projectId: string, id: string): Promise<reportStore.ReportRow> {
  const r = await reportStore.findReport(ctx.db.orm, projectId, id);
  if (!r) throw notFound('alert_report_not_found', `no report ${id}`);
  return r;
}

export const listReports = async (ctx: AlertsContext, projectId: string) => ({ data: (await reportStore.listReports(ctx.db.orm, projectId)).map(present) });
export const getReport = async (ctx: AlertsContext, projectId: string, id: string) => present(await find(ctx, projectId, id));

/** Replaces a report's settings (the body is the whole report, as when created). */
export async function replaceReport(ctx: AlertsContext, projectId: string, id: string, body: ReportBody): Promise<ReportView> {
  const r = await find(ctx, projectId, id);
  await checkReport(ctx, projectId, body);
  const row: reportStore.ReportRow = { ...r, name: body.name, cadence: body.cadence, time_zone: body.timeZone, send_hour: body.sendHour, channel_ids: body.channelIds, webhooks: body.webhooks, enabled: body.enabled, updated_at: ctx.clock.now().getTime() };
  await reportStore.updateReport(ctx.db.orm, row);
  return present(row);
}

export async function deleteReport(ctx: AlertsContext, projectId: string, id: string): Promise<{ id: string; deleted: true }> {
  if (!(await reportStore.deleteReport(ctx.db.orm, projectId, id))) throw notFound('alert_report_not_found', `no report ${id}`);
  return { id, deleted: true };
}

/**
 * "Send now": the digest of the last ended period, sent at once to the report's channels (and
 * webhooks), whether or not the scheduler sent it already; it does not count as the period's
 * scheduled send.
 */
export async function sendReportNow(ctx: AlertsContext, projectId: string, id: string): Promise<DigestView & { deliveries: number }> {
  const r = await find(ctx, projectId, id);
  const period = lastEndedPeriod(r.time_zone, r.cadence, ctx.clock.now().getTime());
  const digest = await composeDigest(ctx, r, period);
  const at = ctx.clock.now().getTime();
  const deliveries = await ctx.db.orm.transaction((tx) => queueDigest(tx, r, digest, at));
  return { ...digest, deliveries };
}

/**
 * Sends each enabled report's last ended period once it is due (its end plus the send hour),
 * exactly once across processes: the period is claimed in the transaction that queues its
 * messages. After downtime only the last period is sent (a digest of last week's Tuesday is
 * no news on Friday); a report never sends a period that ended before it was made.
 */
export async function sendDueReports(ctx: AlertsContext): Promise<{ sent: number }> {
  const now = ctx.clock.now().getTime();
  let sent = 0;
  for (const r of await reportStore.enabledReports(ctx.db.orm)) {
    let period = lastEndedPeriod(r.time_zone, r.cadence, now);
    if (now < period.end + r.send_hour * 3_600_000) period = previousPeriod(r.time_zone, r.cadence, period);
    if (period.end <= r.created_at || (await reportStore.periodSent(ctx.db.orm, r.id, period.end))) continue;
    const digest = await composeDigest(ctx, r, period);
    const at = ctx.clock.now().getTime();
    const claimed = await ctx.db.orm.transaction(async (tx) => {
      if (!(await reportStore.claimPeriod(tx, r.id, period, at))) return false;
      await queueDigest(tx, r, digest, at);
      return true;
    });
    if (claimed) sent++;
  }
  return { sent };
}

async function queueDigest(tx: Executor, r: reportStore.ReportRow, digest: DigestView, at: number): Promise<number> {
  if (r.webhooks) {
    const { subject: _subject, ...data } = digest;
    await emitEvents(tx, [{ organizationId: r.organization_id, projectId: r.project_id, type: 'alert.report', data: { report: { id: r.id, name: r.name }, ...data } }], new Date(at));
  }
  return queueMessages(tx, r.project_id, r.channel_ids, { eventType: 'alert.report', subject: digest.subject, message: digest.message, link: null }, at);
}

type Figures = DigestView['current'];

/** The figures of one period: sums, latency percentiles (and the values for the rank test), evaluator results. */
async function periodFigures(ctx: AlertsContext, projectId: string, p: { start: number; end: number }) {
  const q = { startDate: p.start, endDate: p.end - 1, groupBy: null };
  const [sums, latencies, costs, evaluations] = await Promise.all([
    ctx.periodSums(projectId, q),
    ctx.periodValues(projectId, { ...q, column: 'latency', limit: MAX_PERIOD_VALUES }),
    ctx.periodValues(projectId, { ...q, column: 'cost', limit: MAX_PERIOD_VALUES }),
    ctx.periodEvaluations(projectId, { startDate: q.startDate, endDate: q.endDate, groupBy: 'evaluator', evaluator: null, limit: MAX_PERIOD_VALUES }),
  ]);
  const s = sums[0] ?? { traces: 0, errors: 0, cost: 0 };
  const latency = Float64Array.from(latencies.map((v) => v.v)).sort();
  const figures: Figures = {
    traces: s.traces,
    errors: s.errors,
    errorRate: s.traces ? s.errors / s.traces : null,
    cost: s.cost,
    latencyP50: quantile(latency, 0.5)?.value ?? null,
    latencyP95: quantile(latency, 0.95)?.value ?? null,
  };
  const evaluators = new Map<string, { verdicts: number; passed: number; scores: number[] }>();
  for (const e of evaluations) {
    if (e.status !== 'processed') continue;
    const name = e.g ?? '';
    const x = evaluators.get(name) ?? evaluators.set(name, { verdicts: 0, passed: 0, scores: [] }).get(name)!;
    if (e.passed !== null) {
      x.verdicts++;
      if (e.passed) x.passed++;
    }
    if (e.score !== null) x.scores.push(e.score);
  }
  return { figures, latency, costs: Float64Array.from(costs.map((v) => v.v)), evaluators };
}

/** The digest of one period against the one before: figures, each evaluator, significant changes, the alerts that fired. */
export async function composeDigest(ctx: AlertsContext, r: reportStore.ReportRow, period: { start: number; end: number }): Promise<DigestView> {
  const before = previousPeriod(r.time_zone, r.cadence, period);
  const [now, prev, alerts] = await Promise.all([
    periodFigures(ctx, r.project_id, period),
    periodFigures(ctx, r.project_id, before),
    reportStore.firedAlerts(ctx.db.orm, r.project_id, period.start, period.end),
  ]);
  const mean = (v: number[]) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : null);
  const evaluators = [...now.evaluators.entries()]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([name, e]) => ({ name, verdicts: e.verdicts, passRate: e.verdicts ? e.passed / e.verdicts : null, scores: e.scores.length, meanScore: mean(e.scores) }));

  // Each figure against the previous period with the test the alert rules use for its kind.
  const candidates: { what: string; previous: number | null; current: number | null; p: number | null }[] = [
    { what: 'Traces', previous: prev.figures.traces, current: now.figures.traces, p: poissonTest(now.figures.traces, 1, prev.figures.traces, 1, 'either').pValue },
    {
      what: 'Error rate',
      previous: prev.figures.errorRate,
      current: now.figures.errorRate,
      p: twoProportionTest({ successes: now.figures.errors, n: now.figures.traces }, { successes: prev.figures.errors, n: prev.figures.traces }, 'either')?.pValue ?? null,
    },
    { what: 'Latency p50 (ms)', previous: prev.figures.latencyP50, current: now.figures.latencyP50, p: rankTest(now.latency, prev.latency, 'either')?.pValue ?? null },
    { what: 'Cost per trace (USD)', previous: mean([...prev.costs]), current: mean([...now.costs]), p: rankTest(now.costs, prev.costs, 'either')?.pValue ?? null },
  ];
  for (const [name, e] of now.evaluators) {
    const b = prev.evaluators.get(name);
    if (!b) continue;
    candidates.push({
      what: `${name}: pass rate`,
      previous: b.verdicts ? b.passed / b.verdicts : null,
      current: e.verdicts ? e.passed / e.verdicts : null,
      p: twoProportionTest({ successes: e.passed, n: e.verdicts }, { successes: b.passed, n: b.verdicts }, 'either')?.pValue ?? null,
    });
    candidates.push({ what: `${name}: mean score`, previous: mean(b.scores), current: mean(e.scores), p: rankTest(e.scores, b.scores, 'either')?.pValue ?? null });
  }
  const { rejected, adjusted } = benjaminiHochberg(
    candidates.map((c) => c.p),
    CHANGE_ALPHA,
  );
  const changes = candidates
    .map((c, i) => ({ what: c.what, previous: c.previous, current: c.current, pValue: adjusted[i] ?? 1, significant: rejected[i] }))
    .filter((c) => c.significant)
    .sort((a, b) => a.pValue - b.pValue || a.what.localeCompare(b.what))
    .map(({ significant: _s, ...c }) => c);

  const start = localDate(r.time_zone, period.start);
  const day = `${start.y}-${String(start.m).padStart(2, '0')}-${String(start.d).padStart(2, '0')}`;
  const label = r.cadence === 'daily' ? day : `week of ${day}`;
  const subject = `Spyglass ${r.cadence} report: ${r.name}, ${label}`;
  const digest: Omit<DigestView, 'message'> = {
    reportId: r.id,
    cadence: r.cadence,
    timeZone: r.time_zone,
    period: { start: period.start, end: period.end, label },
    current: now.figures,
    previous: prev.figures,
    evaluators,
    changes,
    alerts,
    subject,
  };
  return { ...digest, message: digestText(digest) };
}

const int = (v: number) => Math.round(v).toLocaleString('en-US');
const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)} %`);
const ms = (v: number | null) => (v === null ? 'n/a' : `${int(v)} ms`);
const usd = (v: number) => `$${v.toFixed(2)}`;
const num = (v: number | null) => (v === null ? 'n/a' : Number(v.toPrecision(4)).toString());

/** The digest as the text e-mail and Slack get. */
function digestText(d: Omit<DigestView, 'message'>): string {
  const c = d.current;
  const p = d.previous;
  const lines = [
    `${d.subject} (${d.timeZone})`,
    '',
    `Traces: ${int(c.traces)} (previous ${int(p.traces)})`,
    `Errors: ${int(c.errors)}, ${pct(c.errorRate)} (previous ${pct(p.errorRate)})`,
    `Cost: ${usd(c.cost)} (previous ${usd(p.cost)})`,
    `Latency p50 / p95: ${ms(c.latencyP50)} / ${ms(c.latencyP95)} (previous ${ms(p.latencyP50)} / ${ms(p.latencyP95)})`,
  ];
  if (d.evaluators.length) {
    lines.push('', 'Evaluators:');
    for (const e of d.evaluators) lines.push(`- ${e.name}: pass rate ${pct(e.passRate)} of ${e.verdicts}, mean score ${num(e.meanScore)} of ${e.scores}`);
  }
  lines.push('', `Changes against the previous period (beyond chance, alpha ${CHANGE_ALPHA} across the report):`);
  if (!d.changes.length) lines.push('- none');
  for (const x of d.changes.slice(0, MAX_CHANGES)) {
    const f = x.what.includes('rate') ? pct : num;
    lines.push(`- ${x.what}: ${f(x.previous)} -> ${f(x.current)} (p = ${x.pValue.toPrecision(2)})`);
  }
  lines.push('', 'Alerts that fired:');
  if (!d.alerts.length) lines.push('- none');
  for (const a of d.alerts) lines.push(`- ${a.rule}${a.segment ? ` (${a.segment})` : ''}: firing from ${new Date(a.since).toISOString()}, ${a.windows} window${a.windows === 1 ? '' : 's'}`);
  return lines.join('\n');
}
