import { badRequest, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { AlertsContext } from './context.ts';
import { checkRequireTrusted, withJudgeTrust } from './judge-trust-gate.ts';
import { presentRule } from './presenters.ts';
import { MAX_WINDOW_MINUTES, METRICS, MIN_WINDOW_MINUTES, type CreateRuleBody, type EvaluationView, type RuleView, type UpdateRuleBody } from './schemas.ts';
import * as store from './store.ts';

/**
 * A thread metric reads thread monitors' results: of one (by name or evaluator path) or, split by
 * evaluator, of each. Thread results are not traces: no trace filter, no other split.
 */
async function checkThreadMetric(ctx: AlertsContext, projectId: string, body: CreateRuleBody): Promise<void> {
  const { metric } = body;
  if (metric.evaluator === undefined && body.splitBy !== 'evaluator')
    throw badRequest('missing_evaluator', `metric.evaluator: required for ${metric.kind} (a thread monitor's name, or split by evaluator)`, 'metric.evaluator');
  if (metric.evaluator !== undefined && !(await ctx.threadEvaluatorKnown(projectId, metric.evaluator)))
    throw badRequest('unknown_evaluator', `metric.evaluator: no thread monitor named ${metric.evaluator}`, 'metric.evaluator');
  if (body.splitBy && body.splitBy !== 'evaluator') throw badRequest('invalid_split', `splitBy: ${metric.kind} splits by evaluator only (thread results have no ${body.splitBy})`, 'splitBy');
  if (body.filters && Object.keys(body.filters).length > 0)
    throw badRequest('invalid_filter', `filters: ${metric.kind} reads thread results, which trace filters do not pick; leave them empty`, 'filters');
}

/** Checks what the schema cannot (docs/alerts.md: "Rules"); each failure is a 400 naming the field. */
export async function checkRule(ctx: AlertsContext, projectId: string, body: CreateRuleBody): Promise<void> {
  const { metric, condition } = body;
  if (!Number.isInteger(body.windowMinutes) || body.windowMinutes < MIN_WINDOW_MINUTES)
    throw badRequest('invalid_window', `windowMinutes: at least ${MIN_WINDOW_MINUTES} (rules are evaluated every minute; a shorter window has too few traces to decide)`, 'windowMinutes');
  if (body.windowMinutes > MAX_WINDOW_MINUTES) throw badRequest('invalid_window', `windowMinutes: at most ${MAX_WINDOW_MINUTES} (7 days)`, 'windowMinutes');
  const info = METRICS[metric.kind];
  if (info.source === 'evaluations') {
    if (metric.evaluator === undefined && body.splitBy !== 'evaluator')
      throw badRequest('missing_evaluator', `metric.evaluator: required for ${metric.kind} (or split by evaluator)`, 'metric.evaluator');
    if (metric.evaluator !== undefined && !(await ctx.evaluatorKnown(projectId, metric.evaluator)))
      throw badRequest('unknown_evaluator', `metric.evaluator: no monitor or evaluator named ${metric.evaluator}`, 'metric.evaluator');
  } else if (info.source === 'thread_evaluations') {
    await checkThreadMetric(ctx, projectId, body);
  } else if (metric.evaluator !== undefined) throw badRequest('invalid_metric', `metric.evaluator: only for evaluator metrics`, 'metric.evaluator');
  checkRequireTrusted(body);
  if (body.splitBy === 'evaluator' && info.source !== 'evaluations' && info.source !== 'thread_evaluations')
    throw badRequest('invalid_split', `splitBy: evaluator splits only evaluator metrics (evaluator_pass_rate, evaluator_score_mean, evaluator_error_rate)`, 'splitBy');
  if (info.source === 'scores') {
    if (!metric.configId) throw badRequest('missing_score_config', `metric.configId: required for ${metric.kind}`, 'metric.configId');
    const config = await ctx.scoreConfig(projectId, metric.configId);
    if (!config) throw badRequest('unknown_score_config', `metric.configId: no score config ${metric.configId} in this project`, 'metric.configId');
    if (metric.kind === 'score_mean' && config.kind === 'categorical')
      throw badRequest('invalid_metric', 'metric.configId: a categorical score has no mean; use category_share', 'metric.configId');
    if (metric.kind === 'category_share') {
      if (config.kind !== 'categorical') throw badRequest('invalid_metric', 'metric.configId: category_share needs a categorical score config', 'metric.configId');
      if (!metric.category || !config.categories.includes(metric.category))
        throw badRequest('unknown_category', `metric.category: one of ${config.categories.join(', ')}`, 'metric.category');
    }
    if (body.splitBy) throw badRequest('invalid_split', `splitBy: ${metric.kind} cannot be split; make one rule per segment with a filter`, 'splitBy');
  } else if (metric.configId !== undefined || metric.category !== undefined)
    throw badRequest('invalid_metric', `metric.${metric.configId !== undefined ? 'configId' : 'category'}: only for score_mean and category_share`, metric.configId !== undefined ? 'metric.configId' : 'metric.category');
  if (body.channels?.length) {
    const known = new Set((await store.listChannels(ctx.db.orm, projectId)).map((c) => c.id));
    const unknown = body.channels.find((c) => !known.has(c));
    if (unknown !== undefined) throw badRequest('unknown_channel', `channels: no alert channel ${unknown} in this project`, 'channels');
  }
  if (condition.kind === 'threshold') {
    // The value is in the metric's unit: a share, a count of traces, milliseconds, USD or tokens.
    if (info.unit === 'share' && (condition.value < 0 || condition.value > 1))
      throw badRequest('invalid_threshold', `condition.value: ${metric.kind} is a rate between 0 and 1`, 'condition.value');
    if (info.unit === 'traces' && !Number.isInteger(condition.value))
      throw badRequest('invalid_threshold', `condition.value: ${metric.kind} is a whole number of traces`, 'condition.value');
    if (info.unit !== 'score' && condition.value < 0) throw badRequest('invalid_threshold', `condition.value: ${metric.kind} is never negative`, 'condition.value');
  } else {
    const b = condition.baseline;
    if (b.kind === 'reference') {
      if (b.end <= b.start) throw badRequest('invalid_baseline', 'condition.baseline.end: the reference period ends after it starts', 'condition.baseline.end');
      if (b.end - b.start < body.windowMinutes * 60_000) throw badRequest('invalid_baseline', 'condition.baseline.end: the reference period is at least one window long', 'condition.baseline.end');
      if (b.end > ctx.clock.now().getTime()) throw badRequest('invalid_baseline', 'condition.baseline.end: the reference period is over by now (it ends in the past)', 'condition.baseline.end');
    }
  }
}

/** A rule's definition as stored, from the body that creates or replaces it. */
export function ruleDefinition(body: CreateRuleBody) {
  return {
    name: body.name,
    metric: body.metric,
    filters: body.filters ?? null,
    split_by: body.splitBy,
    window_ms: body.windowMinutes * 60_000,
    condition: body.condition,
    resolve_after: body.resolveAfter,
    enabled: body.enabled,
    channel_ids: body.channels === null ? null : [...new Set(body.channels)],
  };
}

export async function createRule(ctx: AlertsContext, scope: { organizationId: string; projectId: string }, body: CreateRuleBody): Promise<RuleView> {
  await checkRule(ctx, scope.projectId, body);
  const now = ctx.clock.now().getTime();
  const windowMs = body.windowMinutes * 60_000;
  const row = await store.insertRule(ctx.db.orm, {
    id: newId('alr'),
    organization_id: scope.organizationId,
    project_id: scope.projectId,
    ...ruleDefinition(body),
    muted: false,
    snoozed_until: null,
    acknowledged_at: null,
    // The first window evaluated is the one the rule was made in.
    evaluated_through: Math.floor(now / windowMs) * windowMs,
    segment_states: {},
    created_at: now,
    updated_at: now,
  });
  return presentWithTrust(ctx, row);
}

async function find(ctx: AlertsContext, projectId: string, id: string): Promise<store.RuleRow> {
  const row = await store.findRule(ctx.db.orm, projectId, id);
  if (!row) throw notFound('alert_rule_not_found', `no alert rule ${id}`);
  return row;
}

export const listRules = async (ctx: AlertsContext, projectId: string): Promise<RuleView[]> => withJudgeTrust(ctx, projectId, (await store.listRules(ctx.db.orm, projectId)).map(presentRule));
export const getRule = async (ctx: AlertsContext, projectId: string, id: string): Promise<RuleView> => presentWithTrust(ctx, await find(ctx, projectId, id));

/** A rule as answered: with its judge's trust. */
export async function presentWithTrust(ctx: AlertsContext, row: store.RuleRow): Promise<RuleView> {
  const [view] = await withJudgeTrust(ctx, row.project_id, [presentRule(row)]);
  return view;
}

export async function updateRule(ctx: AlertsContext, projectId: string, id: string, body: UpdateRuleBody): Promise<RuleView> {
  const row = await find(ctx, projectId, id);
  const updated = await store.updateRuleSettings(
    ctx.db.orm,
    projectId,
    id,
    {
      name: body.name ?? row.name,
      enabled: body.enabled ?? row.enabled,
      muted: body.muted ?? row.muted,
      snoozed_until: body.snoozedUntil === undefined ? row.snoozed_until : body.snoozedUntil,
      acknowledged_at: row.acknowledged_at,
    },
    ctx.clock.now().getTime(),
  );
  return presentWithTrust(ctx, updated ?? row);
}

/** Someone is on it: kept on the rule until its next change of state. */
export async function acknowledgeRule(ctx: AlertsContext, projectId: string, id: string): Promise<RuleView> {
  const row = await find(ctx, projectId, id);
  const now = ctx.clock.now().getTime();
  const updated = await store.updateRuleSettings(ctx.db.orm, projectId, id, { name: row.name, enabled: row.enabled, muted: row.muted, snoozed_until: row.snoozed_until, acknowledged_at: now }, now);
  return presentWithTrust(ctx, updated ?? row);
}

export async function deleteRule(ctx: AlertsContext, projectId: string, id: string): Promise<{ id: string; deleted: true }> {
  if (!(await store.deleteRule(ctx.db.orm, projectId, id))) throw notFound('alert_rule_not_found', `no alert rule ${id}`);
  return { id, deleted: true };
}

export async function ruleHistory(ctx: AlertsContext, projectId: string, id: string, query: { limit: number; before?: number }): Promise<{ data: EvaluationView[] }> {
  await find(ctx, projectId, id);
  return { data: await store.listEvaluations(ctx.db.orm, id, query.limit, query.before) };
}
