import { emitEvents, type NewEvent } from '../../platform/events/index.ts';
import { queueDeliveries } from './channels.ts';
import type { AlertsContext } from './context.ts';
import { heldBecause } from './judge-trust-gate.ts';
import { isNews } from './lifecycle.ts';
import { capSegments, type Condition, type Metric, type SegmentDecision } from './measure.ts';
import { windowMeasurements } from './read-windows.ts';
import { METRICS } from './schemas.ts';
import { baselineRange, stepWindow } from './step-window.ts';
import * as store from './store.ts';

/** Rules read per batch. */
const RULES_PER_ROUND = 200;
/** Batches per poll at most (10,000 rules). */
const MAX_ROUNDS = 50;
/** Windows one rule catches up per round after downtime (a 5-minute rule down for a day: 288). */
const CATCH_UP_WINDOWS = 2_000;

/**
 * Evaluates every window that has ended and is not yet evaluated, of every enabled rule.
 * Each window is claimed in the transaction that stores its evaluations (store.claimWindow),
 * so with several processes each window is evaluated exactly once. After downtime the missed
 * windows are evaluated in order; only the state reached at the last one is notified.
 */
export async function evaluateDueRules(ctx: AlertsContext): Promise<{ windows: number }> {
  const now = ctx.clock.now().getTime();
  let windows = 0;
  // Batch after batch while they come full: 1,000 rules due at one boundary are all evaluated
  // in this poll, not one batch per poll (which would delay the last ones by a minute).
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const due = await store.dueRules(ctx.db.orm, now, RULES_PER_ROUND);
    let moved = 0;
    for (const rule of due) {
      const done = await evaluateRule(ctx, rule, now);
      windows += done;
      if (done > 0) moved++;
    }
    // Nothing moved: the rest is being evaluated by another process.
    if (due.length < RULES_PER_ROUND || moved === 0) break;
  }
  return { windows };
}

async function evaluateRule(ctx: AlertsContext, rule: store.RuleRow, now: number): Promise<number> {
  let through = rule.evaluated_through;
  let states = rule.segment_states;
  let done = 0;
  const metric = rule.metric as unknown as Metric;
  const condition = rule.condition as unknown as Condition;
  // read once per round: trust moves as people label, not window by window
  const held = await heldBecause(ctx, rule.project_id, metric);
  while (through + rule.window_ms <= now && done < CATCH_UP_WINDOWS) {
    const start = through;
    const end = through + rule.window_ms;
    const latest = end + rule.window_ms > now;
    const { kept: current, leftOut } = capSegments(await windowMeasurements(ctx, rule, metric, start, end, condition.kind === 'change'));
    const range = baselineRange(condition, start, end, rule.window_ms);
    // Not capped: each kept segment is compared with its own past.
    const baseline = range ? await windowMeasurements(ctx, rule, metric, range[0], range[1], true) : null;
    const exposure = range ? (range[1] - range[0]) / rule.window_ms : 1;
    const { decisions, next, evaluations } = stepWindow({ resolveAfter: rule.resolve_after }, metric, condition, states, current, baseline, exposure, start, end, leftOut, held);

    const events: NewEvent[] = [];
    // A muted or snoozed rule tells no one and keeps what it last told: once the mute or snooze
    // ends, the next window notifies the state it is in then, if that is news (a rule still
    // firing after its snooze is announced; one that fired and resolved meanwhile says nothing).
    const quiet = rule.muted || (rule.snoozed_until !== null && rule.snoozed_until > now);
    if (latest && !quiet) {
      for (const [segment, s] of Object.entries(next)) {
        if (!isNews(s)) continue;
        events.push(alertEvent(ctx, rule, metric, condition, segment, s, decisions.find((d) => d.segment === segment) ?? null, start, end));
        next[segment] = { ...s, notified: s.state };
      }
    }
    const at = ctx.clock.now();
    const committed = await ctx.db.orm.transaction(async (tx) => {
      if (!(await store.claimWindow(tx, rule.id, end, at.getTime()))) return false;
      // The claim is undone with the transaction: the rule moved on under another process.
      if (!(await store.advanceRule(tx, rule.id, through, end, next))) throw new TakenElsewhere();
      await store.insertEvaluations(tx, rule.id, evaluations);
      await emitEvents(tx, events, at);
      await queueDeliveries(ctx, tx, rule, events, at.getTime());
      return true;
    }).catch((err: unknown) => {
      if (err instanceof TakenElsewhere) return false;
      throw err;
    });
    // Another process took this window: it goes on with the rule.
    if (!committed) break;
    through = end;
    states = next;
    done++;
  }
  return done;
}

class TakenElsewhere extends Error {}

/** The traces list's URL parameter of each segment (prompt and evaluator have none: the link shows the window). */
const SEGMENT_FILTER: Record<string, string | undefined> = { model: 'model', label: 'labels', user: 'user', customer: 'customer', topic: 'topic' };

/** The `alert.firing` / `alert.resolved` event: what changed, by how much, against what, since when, and a link to the traces. */
function alertEvent(
  ctx: AlertsContext,
  rule: store.RuleRow,
  metric: Metric,
  condition: Condition,
  segment: string,
  s: store.SegmentState,
  d: SegmentDecision | null,
  start: number,
  end: number,
): NewEvent {
  const info = METRICS[metric.kind];
  const fmt = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : info.family === 'rate' ? `${(v * 100).toFixed(1)} %` : Number(v.toPrecision(4)).toString());
  const value = d?.current.value ?? null;
  const against =
    condition.kind === 'threshold'
      ? { kind: 'threshold', value: condition.value, operator: condition.operator }
      : { kind: condition.baseline.kind, value: d?.baseline?.value ?? null, count: d?.baseline?.count ?? 0 };
  const change = value !== null && against.value !== null ? value - against.value : null;
  const where = segment ? ` for ${rule.split_by} ${segment}` : '';
  const counts = d ? (info.family === 'rate' ? ` (${d.current.successes} of ${d.current.count})` : '') : '';
  const vs = condition.kind === 'threshold' ? `the threshold ${condition.operator} ${fmt(condition.value)}` : `${fmt(against.value)} in the ${condition.baseline.kind === 'previous' ? 'previous window' : condition.baseline.kind === 'week' ? 'same window a week earlier' : 'reference period'}`;
  const message =
    s.state === 'firing'
      ? `${rule.name}: ${info.label}${where} is ${fmt(value)}${counts} in ${iso(start)}..${iso(end)}, against ${vs}${change !== null ? ` (${change >= 0 ? '+' : ''}${fmt(change)})` : ''}${d?.pValue != null ? `, p = ${d.pValue.toPrecision(2)}` : ''}; firing since ${iso(s.since ?? end)}.`
      : `${rule.name}: ${info.label}${where} is back to ${fmt(value)} in ${iso(start)}..${iso(end)}; resolved at ${iso(s.since ?? end)}.`;
  const link = tracesLink(ctx, rule, segment, start, end);
  return {
    organizationId: rule.organization_id,
    projectId: rule.project_id,
    type: s.state === 'firing' ? 'alert.firing' : 'alert.resolved',
    data: {
      rule: { id: rule.id, name: rule.name, metric: rule.metric, split_by: rule.split_by },
      segment: segment || null,
      state: s.state,
      since: s.since,
      window: { start, end },
      value,
      count: d?.current.count ?? 0,
      against,
      change,
      p_value: d?.pValue ?? null,
      message,
      link,
    },
  };
}

const iso = (ms: number) => new Date(ms).toISOString().replace(':00.000Z', 'Z');

/** The traces list filtered to the window, the segment and the rule's own filters (the ones the list's URL can say). */
function tracesLink(ctx: AlertsContext, rule: store.RuleRow, segment: string, start: number, end: number): string {
  const q = new URLSearchParams({ range: 'custom', from: new Date(start).toISOString(), to: new Date(end).toISOString() });
  const f = (rule.filters ?? {});
  const list = (v: unknown) => (Array.isArray(v) ? v.join(',') : typeof v === 'string' ? v : null);
  for (const [key, param] of [['model', 'model'], ['labels', 'labels'], ['user_id', 'user'], ['customer_id', 'customer'], ['topic', 'topic']] as const) {
    const v = list(f[key]);
    if (v) q.set(param, v);
  }
  if (f.has_error !== undefined) q.set('error', f.has_error ? 'yes' : 'no');
  const param = rule.split_by ? SEGMENT_FILTER[rule.split_by] : undefined;
  if (segment && param && segment !== '(none)') q.set(param, segment);
  if ((rule.metric as { kind: string }).kind === 'error_rate') q.set('error', 'yes');
  return `${ctx.publicUrl ?? ''}/p/${rule.project_id}/traces?${q.toString()}`;
}
