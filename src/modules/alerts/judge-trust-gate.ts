/**
 * Alert rules and the judges behind them (docs/alerts.md, "Rules on a judge's numbers"): a rule
 * on an evaluator's pass rate or mean score shows whether that judge can be trusted, and with
 * `metric.requireTrusted` it holds back (never fires) while the judge is not trusted, each held
 * window saying why in the rule's history.
 */
import { badRequest } from '../../platform/errors.ts';
import type { AlertsContext, JudgeTrust } from './context.ts';
import type { CreateRuleBody, MetricKind, RuleView } from './schemas.ts';

/** The metrics that are a judge's numbers: its verdicts and its scores (its own errors are not). */
const JUDGED: ReadonlySet<MetricKind> = new Set(['evaluator_pass_rate', 'evaluator_score_mean']);

type Metric = { kind: MetricKind; evaluator?: string; requireTrusted?: boolean };

/** requireTrusted needs one judge to hold to: an evaluator metric that names its evaluator. 400 naming the field otherwise. */
export function checkRequireTrusted(body: Pick<CreateRuleBody, 'metric'>): void {
  const { metric } = body;
  if (!metric.requireTrusted) return;
  if (!JUDGED.has(metric.kind)) {
    throw badRequest('no_judge', `metric.requireTrusted: ${metric.kind} comes from no judge; only evaluator_pass_rate and evaluator_score_mean can require a trusted judge`, 'metric.requireTrusted');
  }
  if (metric.evaluator === undefined) {
    throw badRequest('no_judge', 'metric.requireTrusted: name the judge in metric.evaluator (a rule split by evaluator has no one judge to require)', 'metric.requireTrusted');
  }
}

/** The judge a rule's numbers come from, or null (not an evaluator metric, or every evaluator). */
const judgeOf = (metric: Metric): string | null => (JUDGED.has(metric.kind) && metric.evaluator !== undefined ? metric.evaluator : null);

/**
 * Why a rule's windows are held back now, or null when they are decided as usual: the rule
 * requires a trusted judge and its judge is not trusted ("judge not trusted: kappa's lower bound
 * is 0.41 on 80 labels; the bar is 0.6").
 */
export async function heldBecause(ctx: AlertsContext, projectId: string, metric: Metric): Promise<string | null> {
  const judge = judgeOf(metric);
  if (!metric.requireTrusted || judge === null) return null;
  const trust = await ctx.judgeTrust(projectId, judge);
  return trust.state === 'trusted' ? null : describe(trust);
}

const describe = (t: JudgeTrust) => `judge ${t.state}${t.scoreConfig ? ` against ${t.scoreConfig}` : ''}: ${t.reason}`;

/** Rules as answered, each with its judge's trust (one lookup per judge). */
export async function withJudgeTrust(ctx: AlertsContext, projectId: string, rules: RuleView[]): Promise<RuleView[]> {
  const trustOf = new Map<string, Promise<JudgeTrust>>();
  return Promise.all(
    rules.map(async (rule) => {
      const judge = judgeOf(rule.metric);
      if (judge === null) return { ...rule, judge: null };
      if (!trustOf.has(judge)) trustOf.set(judge, ctx.judgeTrust(projectId, judge));
      const t = await trustOf.get(judge)!;
      return { ...rule, judge: { evaluator: judge, state: t.state, reason: t.reason, scoreConfig: t.scoreConfig, holding: !!rule.metric.requireTrusted && t.state !== 'trusted' } };
    }),
  );
}
