import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AnnotationContext, AnnotationService } from './service.ts';
import {
  anchorQuery,
  annotationParams,
  annotationSchema,
  createAnnotationBody,
  errorObjectSchema,
  traceParams,
  updateAnnotationBody,
} from './schemas.ts';

const tags = ['annotations'];
const errorShape = 'object' as const;
const errors = { 400: errorObjectSchema, 401: errorObjectSchema, 403: errorObjectSchema, 404: errorObjectSchema };
const one = z.object({ data: annotationSchema });
const many = z.object({ data: z.array(annotationSchema) });

function context(req: FastifyRequest): AnnotationContext {
  return { projectId: req.projectId!, organizationId: req.principal!.organizationId, userId: req.principal!.userId };
}

export function annotationRoutes(app: FastifyInstance, service: AnnotationService) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/api/annotations',
    {
      config: { auth: { scope: 'project', permission: 'annotations:view' }, errorShape },
      schema: { tags, summary: "The project's annotations, newest first", querystring: anchorQuery, response: { 200: many, ...errors } },
    },
    async (req) => ({ data: await service.list(context(req), req.query.anchor) }),
  );

  r.get(
    '/api/annotations/trace/:id',
    {
      config: { auth: { scope: 'project', permission: 'annotations:view' }, errorShape },
      schema: {
        tags,
        summary: "A trace's annotations, oldest first (also for a trace that has not arrived yet)",
        params: traceParams,
        querystring: anchorQuery,
        response: { 200: many, ...errors },
      },
    },
    async (req) => ({ data: await service.forTrace(req.projectId!, req.params.id, req.query.anchor) }),
  );

  r.post(
    '/api/annotations/trace/:id',
    {
      config: { auth: { scope: 'project', permission: 'annotations:create' }, errorShape },
      schema: {
        tags,
        summary: 'Annotate a trace (accepted and kept even before the trace arrives)',
        params: traceParams,
        body: createAnnotationBody,
        response: { 200: one, ...errors },
      },
    },
    async (req) => ({ data: await service.create(context(req), req.params.id, req.body) }),
  );

  r.get(
    '/api/annotations/:id',
    {
      config: { auth: { scope: 'project', permission: 'annotations:view' }, errorShape },
      schema: { tags, summary: 'One annotation', params: annotationParams, response: { 200: one, ...errors } },
    },
    async (req) => ({ data: await service.get(context(req), req.params.id) }),
  );

  r.patch(
    '/api/annotations/:id',
    {
      config: { auth: { scope: 'project', permission: 'annotations:update' }, errorShape },
      schema: {
        tags,
        summary: 'Change the comment and thumbs flag (both required)',
        params: annotationParams,
        body: updateAnnotationBody,
        response: { 200: one, ...errors },
      },
    },
    async (req) => ({ data: await service.update(context(req), req.params.id, req.body) }),
  );

  r.delete(
    '/api/annotations/:id',
    {
      config: { auth: { scope: 'project', permission: 'annotations:delete' }, errorShape },
      schema: {
        tags,
        summary: 'Delete an annotation; an unknown id is 404 annotation_not_found',
        params: annotationParams,
        response: { 200: z.object({ status: z.string(), message: z.string() }), ...errors },
      },
    },
    (req) => service.delete(context(req), req.params.id),
  );
}
