import type { FastifyInstance } from 'fastify';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { JudgeAlignmentContext } from './context.ts';
import { measureAlignment } from './measure-alignment.ts';
import { alignmentQuery, alignmentResponse } from './schemas.ts';

const tags = ['judge-alignment'];

/** A judge measured against people. The nested error shape. */
export function judgeAlignmentRoutes(app: FastifyInstance, ctx: JudgeAlignmentContext) {
  routeGroup(app, { prefix: '/api/judge-alignment', errors: 'nested' }, (r) => {
    const project = projectRoute(r);
    project.get(
      '',
      {
        config: { auth: { scope: 'project', permission: 'traces:view' } },
        schema: {
          tags,
          summary: 'A judge against a human score config: agreement with 95 % intervals, whether it can be trusted, its corrected pass rate, the disagreements',
          querystring: alignmentQuery,
          response: { 200: alignmentResponse },
        },
      },
      (req, scope) => measureAlignment(ctx, scope.projectId, req.query),
    );
  });
}
