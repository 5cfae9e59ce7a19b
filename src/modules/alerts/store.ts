import { sql } from 'drizzle-orm';
import { jsonParam, rows, type Executor } from '../../db/index.ts';
import type { AlertState, EvaluationView } from './schemas.ts';

/** A segment's place in its lifecycle (lifecycle.ts), kept on the rule row. */
export interface SegmentState {
  state: AlertState;
  since: number | null;
  /** Windows in a row that breached / were calm. */
  breaches: number;
  calm: number;
  /** The state last notified (a mute or snooze leaves it as it was): a change from it is notified. */
  notified: AlertState;
}

export interface RuleRow {
  id: string;
  organization_id: string;
  project_id: string;
  name: string;
  metric: Record<string, unknown>;
  filters: Record<string, unknown> | null;
  split_by: string | null;
  window_ms: number;
  condition: Record<string, unknown>;
  resolve_after: number;
  enabled: boolean;
  muted: boolean;
  snoozed_until: number | null;
  acknowledged_at: number | null;
  evaluated_through: number;
  segment_states: Record<string, SegmentState>;
  /** The channels notified; null: every channel of the project. */
  channel_ids: string[] | null;
  created_at: number;
  updated_at: number;
}

const COLUMNS = sql.raw(
  `id, organization_id, project_id, name, metric, filters, split_by, window_ms, condition, resolve_after, enabled, muted, snoozed_until, acknowledged_at, evaluated_through, segment_states, channel_ids, created_at, updated_at`,
);
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function toRow(r: Record<string, unknown>): RuleRow {
  return {
    ...(r as unknown as RuleRow),
    window_ms: Number(r.window_ms),
    resolve_after: Number(r.resolve_after),
    snoozed_until: num(r.snoozed_until),
    acknowledged_at: num(r.acknowledged_at),
    evaluated_through: Number(r.evaluated_through),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

export async function listRules(db: Executor, projectId: string): Promise<RuleRow[]> {
  return (await rows<Record<string, unknown>>(db, sql`SELECT ${COLUMNS} FROM alert_rules WHERE project_id = ${projectId} ORDER BY created_at, id`)).map(toRow);
}

export async function findRule(db: Executor, projectId: string, id: string): Promise<RuleRow | null> {
  const [r] = await rows<Record<string, unknown>>(db, sql`SELECT ${COLUMNS} FROM alert_rules WHERE project_id = ${projectId} AND id = ${id}`);
  return r ? toRow(r) : null;
}

/** Enabled rules, of every project, with a window ended by `now` and not yet evaluated. */
export async function dueRules(db: Executor, now: number, limit: number): Promise<RuleRow[]> {
  return (
    await rows<Record<string, unknown>>(
      db,
      sql`SELECT ${COLUMNS} FROM alert_rules WHERE enabled AND evaluated_through + window_ms <= ${now} ORDER BY evaluated_through + window_ms, id LIMIT ${limit}`,
    )
  ).map(toRow);
}

export async function insertRule(db: Executor, r: RuleRow): Promise<RuleRow> {
  const [row] = await rows<Record<string, unknown>>(
    db,
    sql`INSERT INTO alert_rules (id, organization_id, project_id, name, metric, filters, split_by, window_ms, condition, resolve_after, enabled, muted,
          snoozed_until, acknowledged_at, evaluated_through, segment_states, channel_ids, created_at, updated_at)
        VALUES (${r.id}, ${r.organization_id}, ${r.project_id}, ${r.name}, ${jsonParam(r.metric)}::jsonb, ${r.filters === null ? null : jsonParam(r.filters)}::jsonb,
          ${r.split_by}, ${r.window_ms}, ${jsonParam(r.condition)}::jsonb, ${r.resolve_after}, ${r.enabled}, ${r.muted}, ${r.snoozed_until}, ${r.acknowledged_at},
          ${r.evaluated_through}, ${jsonParam(r.segment_states)}::jsonb, ${r.channel_ids === null ? null : jsonParam(r.channel_ids)}::jsonb, ${r.created_at}, ${r.updated_at})
        RETURNING ${COLUMNS}`,
  );
  return toRow(row);
}

export async function updateRuleSettings(
  db: Executor,
  projectId: string,
  id: string,
  set: { name: string; enabled: boolean; muted: boolean; snoozed_until: number | null; acknowledged_at: number | null },
  at: number,
): Promise<RuleRow | null> {
  const [row] = await rows<Record<string, unknown>>(
    db,
    sql`UPDATE alert_rules SET name = ${set.name}, enabled = ${set.enabled}, muted = ${set.muted}, snoozed_until = ${set.snoozed_until},
          acknowledged_at = ${set.acknowledged_at}, updated_at = ${at}
        WHERE project_id = ${projectId} AND id = ${id} RETURNING ${COLUMNS}`,
  );
  return row ? toRow(row) : null;
}

type Definition = Pick<RuleRow, 'name' | 'metric' | 'filters' | 'split_by' | 'window_ms' | 'condition' | 'resolve_after' | 'enabled' | 'channel_ids' | 'evaluated_through' | 'segment_states'>;

/** A rule's definition replaced (the editor): its states and the window it resumes from with it. */
export async function replaceRuleDefinition(db: Executor, projectId: string, id: string, d: Definition, at: number): Promise<RuleRow | null> {
  const [row] = await rows<Record<string, unknown>>(
    db,
    sql`UPDATE alert_rules SET name = ${d.name}, metric = ${jsonParam(d.metric)}::jsonb, filters = ${d.filters === null ? null : jsonParam(d.filters)}::jsonb,
          split_by = ${d.split_by}, window_ms = ${d.window_ms}, condition = ${jsonParam(d.condition)}::jsonb, resolve_after = ${d.resolve_after},
          enabled = ${d.enabled}, channel_ids = ${d.channel_ids === null ? null : jsonParam(d.channel_ids)}::jsonb,
          evaluated_through = ${d.evaluated_through}, segment_states = ${jsonParam(d.segment_states)}::jsonb, updated_at = ${at}
        WHERE project_id = ${projectId} AND id = ${id} RETURNING ${COLUMNS}`,
  );
  return row ? toRow(row) : null;
}

export async function deleteRule(db: Executor, projectId: string, id: string): Promise<boolean> {
  return (await rows(db, sql`DELETE FROM alert_rules WHERE project_id = ${projectId} AND id = ${id} RETURNING id`)).length > 0;
}

export async function deleteProjectRules(db: Executor, projectId: string): Promise<void> {
  await db.execute(sql`DELETE FROM alert_rules WHERE project_id = ${projectId}`);
}

/**
 * Claims a rule's window for this transaction: true for exactly one caller across every
 * process (the primary key); the claim commits or rolls back with the evaluation.
 */
export async function claimWindow(tx: Executor, ruleId: string, windowEnd: number, at: number): Promise<boolean> {
  const claimed = await rows(tx, sql`INSERT INTO alert_windows (rule_id, window_end, evaluated_at) VALUES (${ruleId}, ${windowEnd}, ${at}) ON CONFLICT DO NOTHING RETURNING rule_id`);
  return claimed.length > 0;
}

export async function insertEvaluations(tx: Executor, ruleId: string, evaluations: EvaluationView[]): Promise<void> {
  if (!evaluations.length) return;
  await tx.execute(sql`
    INSERT INTO alert_evaluations (rule_id, window_end, segment, window_start, value, baseline, count, baseline_count, low, high, p_value, decision, state, segments_left_out, held)
    SELECT ${ruleId}, x."windowEnd", x.segment, x."windowStart", x.value, x.baseline, x.count, x."baselineCount", x.low, x.high, x."pValue", x.decision, x.state, x."segmentsLeftOut", x.held
    FROM jsonb_to_recordset(${jsonParam(evaluations)}::jsonb) AS x("windowEnd" bigint, segment text, "windowStart" bigint, value float8, baseline float8, count float8,
      "baselineCount" float8, low float8, high float8, "pValue" float8, decision text, state text, "segmentsLeftOut" int, held text)`);
}

/** Moves the rule past a window; false when another process moved it first. */
export async function advanceRule(tx: Executor, ruleId: string, from: number, to: number, states: Record<string, SegmentState>): Promise<boolean> {
  const moved = await rows(
    tx,
    sql`UPDATE alert_rules SET evaluated_through = ${to}, segment_states = ${jsonParam(states)}::jsonb WHERE id = ${ruleId} AND evaluated_through = ${from} RETURNING id`,
  );
  return moved.length > 0;
}

export async function listEvaluations(db: Executor, ruleId: string, limit: number, before: number | undefined): Promise<EvaluationView[]> {
  const found = await rows<Record<string, unknown>>(
    db,
    sql`SELECT window_start, window_end, segment, value, baseline, count, baseline_count, low, high, p_value, decision, state, segments_left_out, held FROM alert_evaluations
        WHERE rule_id = ${ruleId} ${before === undefined ? sql`` : sql`AND window_end < ${before}`}
        ORDER BY window_end DESC, segment LIMIT ${limit}`,
  );
  return found.map((r) => ({
    windowStart: Number(r.window_start),
    windowEnd: Number(r.window_end),
    segment: r.segment as string,
    value: num(r.value),
    baseline: num(r.baseline),
    count: Number(r.count),
    baselineCount: num(r.baseline_count),
    low: num(r.low),
    high: num(r.high),
    pValue: num(r.p_value),
    decision: r.decision as EvaluationView['decision'],
    state: r.state as AlertState,
    segmentsLeftOut: Number(r.segments_left_out),
    held: (r.held as string | null) ?? null,
  }));
}

/** Windows claimed (evaluated) per rule: what the exactly-once test and the operators count. */
export async function countWindows(db: Executor, ruleId: string): Promise<number> {
  const [r] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM alert_windows WHERE rule_id = ${ruleId}`);
  return Number(r.n);
}

export interface ChannelRow {
  id: string;
  organization_id: string;
  project_id: string;
  name: string;
  kind: 'email' | 'slack';
  target: string;
  created_at: number;
}

export async function insertChannel(db: Executor, c: ChannelRow): Promise<void> {
  await db.execute(
    sql`INSERT INTO alert_channels (id, organization_id, project_id, name, kind, target, created_at) VALUES (${c.id}, ${c.organization_id}, ${c.project_id}, ${c.name}, ${c.kind}, ${c.target}, ${c.created_at})`,
  );
}

export async function listChannels(db: Executor, projectId: string): Promise<ChannelRow[]> {
  const found = await rows<ChannelRow>(db, sql`SELECT id, organization_id, project_id, name, kind, target, created_at FROM alert_channels WHERE project_id = ${projectId} ORDER BY created_at, id`);
  return found.map((c) => ({ ...c, created_at: Number(c.created_at) }));
}

export async function findChannel(db: Executor, projectId: string, id: string): Promise<ChannelRow | null> {
  return (await listChannels(db, projectId)).find((c) => c.id === id) ?? null;
}

export async function deleteChannel(db: Executor, projectId: string, id: string): Promise<boolean> {
  // Rules that chose the channel no longer name it (jsonb minus a string drops that array element).
  await db.execute(sql`UPDATE alert_rules SET channel_ids = channel_ids - ${id}::text WHERE project_id = ${projectId} AND channel_ids ? ${id}`);
  return (await rows(db, sql`DELETE FROM alert_channels WHERE project_id = ${projectId} AND id = ${id} RETURNING id`)).length > 0;
}

export async function deleteProjectChannels(db: Executor, projectId: string): Promise<void> {
  await db.execute(sql`DELETE FROM alert_channels WHERE project_id = ${projectId}`);
}

export interface DeliveryRow {
  id: string;
  channel_id: string;
  /** The rule the message is about; null before migration 0041. */
  rule_id: string | null;
  project_id: string;
  event_type: string;
  subject: string;
  message: string;
  link: string | null;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}

export async function insertDeliveries(tx: Executor, deliveries: DeliveryRow[]): Promise<void> {
  if (!deliveries.length) return;
  await tx.execute(sql`
    INSERT INTO alert_deliveries (id, channel_id, rule_id, project_id, event_type, subject, message, link, status, attempts, last_error, created_at, sent_at)
    SELECT x.id, x.channel_id, x.rule_id, x.project_id, x.event_type, x.subject, x.message, x.link, x.status, x.attempts, x.last_error, x.created_at, x.sent_at
    FROM jsonb_to_recordset(${jsonParam(deliveries)}::jsonb) AS x(id text, channel_id text, rule_id text, project_id text, event_type text, subject text, message text, link text,
      status text, attempts int, last_error text, created_at bigint, sent_at bigint)`);
}

const DELIVERY_COLUMNS = sql.raw(`id, channel_id, rule_id, project_id, event_type, subject, message, link, status, attempts, last_error, created_at, sent_at`);
const toDelivery = (r: DeliveryRow): DeliveryRow => ({ ...r, attempts: Number(r.attempts), created_at: Number(r.created_at), sent_at: num(r.sent_at) });

export async function findDelivery(db: Executor, id: string): Promise<DeliveryRow | null> {
  const [r] = await rows<DeliveryRow>(db, sql`SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries WHERE id = ${id}`);
  return r ? toDelivery(r) : null;
}

export async function recordAttempt(db: Executor, id: string, outcome: { status: DeliveryRow['status']; error: string | null; at: number }): Promise<void> {
  await db.execute(
    sql`UPDATE alert_deliveries SET attempts = attempts + 1, status = ${outcome.status}, last_error = ${outcome.error},
          sent_at = CASE WHEN ${outcome.status} = 'sent' THEN ${outcome.at}::bigint ELSE sent_at END
        WHERE id = ${id}`,
  );
}

export async function listDeliveries(db: Executor, channelId: string, limit: number): Promise<DeliveryRow[]> {
  return (await rows<DeliveryRow>(db, sql`SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries WHERE channel_id = ${channelId} ORDER BY created_at DESC, id LIMIT ${limit}`)).map(toDelivery);
}

/** A rule's messages to every channel, newest first, with the channel's name. */
export async function listRuleDeliveries(db: Executor, projectId: string, ruleId: string, limit: number): Promise<(DeliveryRow & { channel_name: string })[]> {
  const found = await rows<DeliveryRow & { channel_name: string }>(
    db,
    sql`SELECT d.id, d.channel_id, d.rule_id, d.project_id, d.event_type, d.subject, d.message, d.link, d.status, d.attempts, d.last_error, d.created_at, d.sent_at, c.name AS channel_name
        FROM alert_deliveries d JOIN alert_channels c ON c.id = d.channel_id
        WHERE d.project_id = ${projectId} AND d.rule_id = ${ruleId} ORDER BY d.created_at DESC, d.id LIMIT ${limit}`,
  );
  return found.map((d) => ({ ...toDelivery(d), channel_name: d.channel_name }));
}
