import type { FastifyInstance } from 'fastify';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import { judgesWithResults } from '../evaluators/index.ts';
import { threadJudgesWithResults } from '../threads/index.ts';
import { mergedJudges } from './thread-pairs.ts';
import { judgesOnRows } from '../experiments/index.ts';
import type { VersionComparisonContext } from './context.ts';
import { getVersionComparison, listVersionComparisons, startVersionComparison } from './compare-versions.ts';
import { judgeTrust } from './judge-trust.ts';
import { labelMore } from './label-more.ts';
import { measureAlignment } from './measure-alignment.ts';
import {
  alignmentQuery,
  alignmentResponse,
  judgesResponse,
  judgeTrustQuery,
  judgeTrustResponse,
  labelMoreQuery,
  labelMoreResponse,
  selfConsistencyBody,
  selfConsistencyResponse,
  sendDisagreementsBody,
  sendDisagreementsResponse,
  trustRuleBody,
  trustRuleSchema,
  versionComparisonBody,
  versionComparisonParams,
  versionComparisonSchema,
  versionComparisonsQuery,
  versionComparisonsResponse,
} from './schemas.ts';
import { selfConsistency } from './self-consistency.ts';
import { sendDisagreements } from './send-disagreements.ts';
import { setTrustRule, trustRuleOf } from './trust-rule.ts';

const viewer = { auth: { scope: 'project', permission: 'traces:view' } } as const;

/** A judge measured against people. The nested error shape. */
export function judgeAlignmentRoutes(app: FastifyInstance, ctx: VersionComparisonContext) {
  routeGroup(app, { prefix: '/api/judge-alignment', errors: 'nested', tag: { name: 'judge-alignment', title: 'Judge alignment' } }, (r) => {
    const project = projectRoute(r);
    project.get(
      '',
      {
        config: viewer,
        schema: {
          summary: 'A judge against a human score config: agreement with 95 % intervals, whether it can be trusted, its corrected pass rate, the disagreements',
          querystring: alignmentQuery,
          response: { 200: alignmentResponse },
        },
      },
      (req, scope) => measureAlignment(ctx, scope.projectId, req.query),
    );
    project.get(
      '/judges',
      { config: viewer, schema: { summary: 'The evaluators with results in the project, with their versions: the judges that can be measured', response: { 200: judgesResponse } } },
      async (_req, scope) => ({
        data: mergedJudges(await judgesWithResults(ctx.db, scope.projectId), await judgesOnRows(ctx.db, scope.projectId), await threadJudgesWithResults(ctx.db, scope.projectId)),
      }),
    );
    project.get(
      '/trust',
      {
        config: viewer,
        schema: {
          summary: "A judge's trust against each human score config that labelled some of its traces; with passed and judged, that raw rate corrected",
          querystring: judgeTrustQuery,
          response: { 200: judgeTrustResponse },
        },
      },
      (req, scope) => judgeTrust(ctx, scope.projectId, req.query),
    );
    project.get(
      '/trust-rule',
      { config: viewer, schema: { summary: "The project's trust rule (the default when it set none)", response: { 200: trustRuleSchema } } },
      (_req, scope) => trustRuleOf(ctx, scope.projectId),
    );
    project.put(
      '/trust-rule',
      {
        config: { auth: { scope: 'project', permission: 'evaluators:update' } },
        schema: { summary: 'Set what a judge must reach to be trusted in this project', body: trustRuleBody, response: { 200: trustRuleSchema } },
      },
      (req, scope) => setTrustRule(ctx, scope.projectId, req.body),
    );
    project.get(
      '/label-more',
      {
        config: viewer,
        schema: { summary: 'Unlabelled traces the judge scored, those whose labels narrow the widest interval first', querystring: labelMoreQuery, response: { 200: labelMoreResponse } },
      },
      (req, scope) => labelMore(ctx, scope.projectId, req.query),
    );
    project.post(
      '/disagreements/review',
      {
        config: { auth: { scope: 'project', permission: 'reviewQueues:update' } },
        schema: { summary: "Send every disagreement between the judge and people to a review queue (an existing one or a new one)", body: sendDisagreementsBody, response: { 200: sendDisagreementsResponse } },
      },
      (req, scope) => sendDisagreements(ctx, scope, req.body),
    );
    project.post(
      '/self-consistency',
      {
        // runs the judge (it costs model calls), so as evaluating does
        config: { auth: { scope: 'project', permission: 'evaluations:create' } },
        schema: {
          summary: "Run the judge several times on the same labelled items and say how often its repeats disagree, per item and overall, with intervals; nothing is stored",
          body: selfConsistencyBody,
          response: { 200: selfConsistencyResponse },
        },
      },
      (req, scope) => selfConsistency(ctx, scope, req.body),
    );
    project.post(
      '/version-comparisons',
      {
        config: { auth: { scope: 'project', permission: 'evaluations:create' } },
        schema: {
          summary:
            "Improving a judge: run a new version of a custom judge over the traces people labelled and the older version scored, as an experiment run whose target is the judge (its rows: the labelled items), then compare how far each version agrees with people (paired bootstrap, a verdict in words). Answers 202 at once with the run; follow it with GET /version-comparisons/{id}",
          body: versionComparisonBody,
          response: { 202: versionComparisonSchema },
        },
      },
      async (req, scope, reply) => {
        const started = await startVersionComparison(ctx, scope, req.body, `${req.protocol}://${req.host}`);
        reply.code(202);
        return started;
      },
    );
    project.get(
      '/version-comparisons',
      { config: viewer, schema: { summary: "A judge's version comparisons, newest first (the last 20)", querystring: versionComparisonsQuery, response: { 200: versionComparisonsResponse } } },
      (req, scope) => listVersionComparisons(ctx, scope.projectId, req.query.evaluator),
    );
    project.get(
      '/version-comparisons/:id',
      { config: viewer, schema: { summary: 'One version comparison: running, done (with its result) or failed (with why)', params: versionComparisonParams, response: { 200: versionComparisonSchema } } },
      (req, scope) => getVersionComparison(ctx, scope.projectId, req.params.id),
    );
  });
}
