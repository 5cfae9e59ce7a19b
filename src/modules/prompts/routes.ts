import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { badRequest } from '../../platform/errors.ts';
import type { PromptContext, PromptService, VersionSelection } from './service.ts';
import {
  TAG_PATTERN,
  compileBody,
  createPromptBody,
  promptErrorSchema,
  promptSchema,
  restoreBody,
  tagBody,
  tagSchema,
  updatePromptBody,
  runBody,
  runResponse,
} from './schemas.ts';
import { forbidden } from '../../platform/errors.ts';

const tags = ['prompts'];
const errorShape = 'string' as const;
const errors = { 400: promptErrorSchema, 401: promptErrorSchema, 403: promptErrorSchema, 404: promptErrorSchema, 409: promptErrorSchema };
/** A version or tag of a read, as `handle:3` / `handle:production` select them in the path. */
const selectionQuery = z.object({
  version: z
    .string()
    .regex(/^([1-9]\d{0,8}|latest)$/, 'a version number (1 or more) or latest')
    .optional()
    .describe('a version number, or latest'),
  tag: z.string().regex(TAG_PATTERN, 'a tag: a letter, then letters, digits, _ or -').optional().describe('a tag, e.g. production'),
  label: z
    .string()
    .regex(TAG_PATTERN, 'a tag: a letter, then letters, digits, _ or -')
    
    .optional()
    .describe('the same as tag (the name some LangWatch SDK releases send)'),
});

function selection(q: z.infer<typeof selectionQuery>): VersionSelection {
  if (q.tag !== undefined && q.label !== undefined && q.tag !== q.label) {
    throw badRequest('conflicting_selection', 'label: differs from tag (they name the same thing)', 'label');
  }
  const tag = q.tag ?? q.label;
  return {
    ...(q.version !== undefined ? { version: q.version === 'latest' ? ('latest' as const) : Number(q.version) } : {}),
    ...(tag !== undefined ? { tag } : {}),
  };
}

const idParams = z.object({
  id: z
    .string()
    .min(1)
    .max(300)
    .describe('prompt id or handle (a handle with a slash is sent URL-encoded: support%2Ftriage); reads also take :<version> or :<tag>'),
});
const tagParams = idParams.extend({
  tag: z.string().regex(TAG_PATTERN, 'a tag is 1..50 lowercase letters, digits, _ or -, starting with a letter'),
});
const restoreParams = idParams.extend({ versionId: z.string().min(1).max(100).describe('versionId, or a version number') });

function context(req: FastifyRequest): PromptContext {
  return { projectId: req.projectId!, organizationId: req.principal!.organizationId, userId: req.principal!.userId };
}

export function promptRoutes(app: FastifyInstance, service: PromptService) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  // The spec puts the prompt list and create at {base_url}/; /api/prompts is the same route.
  for (const url of ['/', '/api/prompts']) {
    r.get(
      url,
      {
        config: { auth: { scope: 'project', permission: 'prompts:view' }, errorShape },
        schema: {
          tags,
          summary: "The project's prompts (newest version each), organization-scoped prompts of its organization included",
          response: { 200: z.array(promptSchema), ...errors },
        },
      },
      (req) => service.list(context(req)),
    );
    r.post(
      url,
      {
        config: { auth: { scope: 'project', permission: 'prompts:create' }, errorShape },
        schema: {
          tags,
          summary: 'Create a prompt with its version 1; a handle is unique per scope (409)',
          body: createPromptBody,
          response: { 200: promptSchema, ...errors },
        },
      },
      (req) => service.create(context(req), req.body),
    );
  }

  r.get(
    '/api/prompts/:id',
    {
      config: { auth: { scope: 'project', permission: 'prompts:view' }, errorShape },
      schema: {
        tags,
        summary: 'One prompt by id or handle: the newest version, `handle:3` or `?version=3` for version 3, `handle:production` or `?tag=production` for a tag',
        params: idParams,
        querystring: selectionQuery,
        response: { 200: promptSchema, ...errors },
      },
    },
    (req) => service.get(context(req), req.params.id, selection(req.query)),
  );

  r.put(
    '/api/prompts/:id',
    {
      config: { auth: { scope: 'project', permission: 'prompts:update' }, errorShape },
      schema: {
        tags,
        summary: 'Save a new version (commitMessage required); fields not sent carry over from the newest version',
        params: idParams,
        body: updatePromptBody,
        response: { 200: promptSchema, ...errors },
      },
    },
    (req) => service.update(context(req), req.params.id, req.body),
  );

  r.delete(
    '/api/prompts/:id',
    {
      config: { auth: { scope: 'project', permission: 'prompts:delete' }, errorShape },
      schema: {
        tags,
        summary: 'Delete a prompt with all its versions and tags',
        params: idParams,
        response: { 200: z.object({ id: z.string(), handle: z.string(), deleted: z.literal(true) }), ...errors },
      },
    },
    (req) => service.delete(context(req), req.params.id),
  );

  r.get(
    '/api/prompts/:id/versions',
    {
      config: { auth: { scope: 'project', permission: 'prompts:view' }, errorShape },
      schema: { tags, summary: 'Every version of a prompt, newest first', params: idParams, response: { 200: z.array(promptSchema), ...errors } },
    },
    (req) => service.versions(context(req), req.params.id),
  );

  r.post(
    '/api/prompts/:id/versions/:versionId/restore',
    {
      config: { auth: { scope: 'project', permission: 'prompts:update' }, errorShape },
      schema: {
        tags,
        summary: 'Save a new version that copies an old one',
        params: restoreParams,
        body: restoreBody,
        response: { 200: promptSchema, ...errors },
      },
    },
    (req) => service.restore(context(req), req.params.id, req.params.versionId, req.body ?? {}),
  );

  r.put(
    '/api/prompts/:id/tags/:tag',
    {
      config: { auth: { scope: 'project', permission: 'prompts:update' }, errorShape },
      schema: {
        tags,
        summary: 'Point a tag (production, staging, or a custom one) at a version; moves it if it pointed elsewhere',
        params: tagParams,
        body: tagBody,
        response: { 200: tagSchema, ...errors },
      },
    },
    (req) => service.setTag(context(req), req.params.id, req.params.tag, req.body),
  );

  r.delete(
    '/api/prompts/:id/tags/:tag',
    {
      config: { auth: { scope: 'project', permission: 'prompts:update' }, errorShape },
      schema: {
        tags,
        summary: 'Remove a tag',
        params: tagParams,
        response: { 200: z.object({ promptId: z.string(), tag: z.string(), deleted: z.literal(true) }), ...errors },
      },
    },
    (req) => service.deleteTag(context(req), req.params.id, req.params.tag),
  );

  r.post(
    '/api/prompts/:id/compile',
    {
      config: { auth: { scope: 'project', permission: 'prompts:view' }, errorShape },
      schema: {
        tags,
        summary: 'Render the prompt and messages with {variables}; a variable the template uses is required (400 naming it)',
        params: idParams,
        querystring: selectionQuery,
        body: compileBody,
        response: { 200: promptSchema.extend({ variables: z.record(z.string(), z.unknown()) }), ...errors },
      },
    },
    (req) => service.compile(context(req), req.params.id, req.body.variables, selection(req.query)),
  );

  r.post(
    '/api/prompts/:id/run',
    {
      // Costs money and writes a trace: traces:create (MEMBER, ADMIN, project keys; not readonly keys or VIEWERs), and prompts:view.
      config: { auth: { scope: 'project', permission: 'traces:create' }, errorShape: 'nested' },
      schema: {
        tags,
        summary: '"Try it": run a version against the configured OpenAI-compatible model; the run is recorded as a trace of the project',
        params: idParams,
        body: runBody,
        response: { 200: runResponse },
      },
    },
    async (req, reply) => {
      if (!req.principal!.projectPermissions(req.projectId!).has('prompts:view')) throw forbidden('running a prompt also needs the prompts:view permission');
      // A client that gives up stops the provider call made on its behalf.
      const controller = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableEnded) controller.abort(new Error('the client closed the connection'));
      };
      reply.raw.once('close', onClose);
      try {
        return await service.run(context(req), req.params.id, req.body, controller.signal);
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );
}
