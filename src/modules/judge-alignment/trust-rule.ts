import type { z } from 'zod';
import type { JudgeAlignmentContext } from './context.ts';
import type { trustRuleBody, trustRuleSchema } from './schemas.ts';
import { DEFAULT_TRUST_RULE } from './statistics.ts';
import * as store from './store.ts';

type TrustRuleView = z.output<typeof trustRuleSchema>;

/** The project's trust rule, or the documented default (kappa's lower bound >= 0.6 on 50 labels) when it set none. */
export async function trustRuleOf(ctx: JudgeAlignmentContext, projectId: string): Promise<TrustRuleView> {
  const row = await store.findTrustRule(ctx.db.orm, projectId);
  if (!row) return { statistic: 'kappa', atLeast: DEFAULT_TRUST_RULE.atLeast, minimumLabels: DEFAULT_TRUST_RULE.minimumLabels, stored: false };
  return { statistic: row.statistic, atLeast: row.atLeast, minimumLabels: row.minimumLabels, stored: true };
}

/** PUT /api/judge-alignment/trust-rule: what the team needs; every judge's state follows it from the next answer on. */
export async function setTrustRule(ctx: JudgeAlignmentContext, projectId: string, body: z.output<typeof trustRuleBody>): Promise<TrustRuleView> {
  const row = await store.saveTrustRule(ctx.db.orm, { projectId, ...body, updatedAt: ctx.clock.now().getTime() });
  return { statistic: row.statistic, atLeast: row.atLeast, minimumLabels: row.minimumLabels, stored: true };
}
