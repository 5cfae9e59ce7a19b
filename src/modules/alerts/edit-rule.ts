import { notFound } from '../../platform/errors.ts';
import type { AlertsContext } from './context.ts';
import { checkRule, presentWithTrust, ruleDefinition } from './manage-rules.ts';
import type { CreateRuleBody, RuleView } from './schemas.ts';
import * as store from './store.ts';

/**
 * The rule editor's save: the whole definition replaced, checked as on create. When what is
 * measured or decided changes (metric, filter, split, window, condition), the old states and
 * history no longer describe the rule: its segments start ok again from the current window.
 * A rename or other channels keep them.
 */
export async function replaceRule(ctx: AlertsContext, projectId: string, id: string, body: CreateRuleBody): Promise<RuleView> {
  const row = await store.findRule(ctx.db.orm, projectId, id);
  if (!row) throw notFound('alert_rule_not_found', `no alert rule ${id}`);
  await checkRule(ctx, projectId, body);
  const now = ctx.clock.now().getTime();
  const windowMs = body.windowMinutes * 60_000;
  const measured = (m: unknown, f: unknown, s: unknown, w: number, c: unknown) => JSON.stringify(sortedKeys([m, f ?? null, s, w, c]));
  const same = measured(row.metric, row.filters, row.split_by, row.window_ms, row.condition) === measured(body.metric, body.filters, body.splitBy, windowMs, body.condition);
  const updated = await store.replaceRuleDefinition(
    ctx.db.orm,
    projectId,
    id,
    {
      ...ruleDefinition(body),
      evaluated_through: same ? row.evaluated_through : Math.floor(now / windowMs) * windowMs,
      segment_states: same ? row.segment_states : {},
    },
    now,
  );
  if (!updated) throw notFound('alert_rule_not_found', `no alert rule ${id}`);
  return presentWithTrust(ctx, updated);
}

/** The value with every object's keys in order: jsonb keeps its own order, so a stored definition and a new one compare by content. */
function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sortedKeys(x)]));
  return v;
}
