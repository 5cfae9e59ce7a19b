import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { projectRoute, routeGroup, type ProjectScope } from '../../platform/http/route-group.ts';
import { createAnnotation, deleteAnnotation, updateAnnotation } from './annotate.ts';
import type { AnnotationScope, AnnotationsContext } from './context.ts';
import { annotationsOfTrace, getAnnotation, listAnnotations } from './read-annotations.ts';
import { anchorQuery, annotationParams, annotationSchema, createAnnotationBody, traceParams, updateAnnotationBody } from './schemas.ts';

const one = z.object({ data: annotationSchema });
const many = z.object({ data: z.array(annotationSchema) });

const annotator = ({ projectId, organizationId, userId }: ProjectScope): AnnotationScope => ({ projectId, organizationId, userId });

/** Annotation routes: the shared Error object (spec: Errors). */
export function annotationRoutes(app: FastifyInstance, ctx: AnnotationsContext) {
  routeGroup(app, { prefix: '/api/annotations', errors: 'object', tag: { name: 'annotations', title: 'Annotations' } }, (r, g) => {
    const project = projectRoute(r);
    project.get(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'annotations:view' } },
        schema: { summary: "The project's annotations, newest first", querystring: anchorQuery, response: { 200: many } },
      },
      async (req, scope) => ({ data: await listAnnotations(ctx, annotator(scope), req.query.anchor) }),
    );

    project.get(
      '/trace/:id',
      {
        config: { auth: { scope: 'project', permission: 'annotations:view' } },
        schema: {
          summary: "A trace's annotations, oldest first (also for a trace that has not arrived yet)",
          params: traceParams,
          querystring: anchorQuery,
          response: { 200: many },
        },
      },
      async (req, { projectId }) => ({ data: await annotationsOfTrace(ctx, { projectId }, req.params.id, req.query.anchor) }),
    );

    project.post(
      '/trace/:id',
      {
        config: { auth: { scope: 'project', permission: 'annotations:create' } },
        schema: {
          summary: 'Annotate a trace (accepted and kept even before the trace arrives)',
          params: traceParams,
          body: createAnnotationBody,
          response: { 200: one },
        },
      },
      async (req, scope) => ({ data: await createAnnotation(ctx, annotator(scope), req.params.id, req.body) }),
    );

    project.get(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'annotations:view' } },
        schema: { summary: 'One annotation', params: annotationParams, response: { 200: one, ...g.errors(404) } },
      },
      async (req, scope) => ({ data: await getAnnotation(ctx, annotator(scope), req.params.id) }),
    );

    project.patch(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'annotations:update' } },
        schema: {
          summary: 'Change the comment and thumbs flag (both required)',
          params: annotationParams,
          body: updateAnnotationBody,
          response: { 200: one, ...g.errors(404) },
        },
      },
      async (req, scope) => ({ data: await updateAnnotation(ctx, annotator(scope), req.params.id, req.body) }),
    );

    project.delete(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'annotations:delete' } },
        schema: {
          summary: 'Delete an annotation; an unknown id is 404 annotation_not_found',
          params: annotationParams,
          response: { 200: z.object({ status: z.string(), message: z.string() }), ...g.errors(404) },
        },
      },
      (req, scope) => deleteAnnotation(ctx, annotator(scope), req.params.id),
    );
  });
}
