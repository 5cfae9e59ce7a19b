import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { AppError, badRequest, forbidden, renderError } from '../../platform/errors.ts';
import { projectRoute, routeGroup, type ProjectScope, type RouteGroup, type Router } from '../../platform/http/route-group.ts';
import type { PromptScope, PromptsContext, RunStreamEvent, VersionSelection } from './context.ts';
import { compilePrompt, getPrompt, listPrompts, listVersions } from './read-prompts.ts';
import { runVersion } from './run-prompt.ts';
import { createPrompt, deletePrompt, restoreVersion, updatePrompt } from './save-prompt.ts';
import { deleteTag, setTag } from './tags.ts';
import {
  TAG_PATTERN,
  selectionQuery,
  compileBody,
  createPromptBody,
  promptSchema,
  restoreBody,
  tagBody,
  tagSchema,
  updatePromptBody,
  runBody,
  runResponse,
  type RunResponse,
} from './schemas.ts';

/** A version or tag of a read, as `handle:3` / `handle:production` select them in the path. */
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

const context = ({ projectId, organizationId, userId }: ProjectScope): PromptScope => ({ projectId, organizationId, userId });

/**
 * Prompt routes: {error: message} (spec: Errors), except "Try it" (run), which answers the
 * nested shape. The spec puts the prompt list and create at {base_url}/ as well.
 */
export function promptRoutes(app: FastifyInstance, ctx: PromptsContext) {
  /** List and create: at {base_url}/ (the spec's place) and at /api/prompts, the same routes. */
  const listAndCreate = (r: Router, g: RouteGroup) => {
    const errors = g.errors(404, 409);
    const project = projectRoute(r);
    project.get(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'prompts:view' } },
        schema: {
          summary: "The project's prompts (newest version each), organization-scoped prompts of its organization included",
          response: { 200: z.array(promptSchema), ...errors },
        },
      },
      (_req, scope) => listPrompts(ctx, context(scope)),
    );
    project.post(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'prompts:create' } },
        schema: {
          summary: 'Create a prompt with its version 1; a handle is unique per scope (409)',
          body: createPromptBody,
          response: { 200: promptSchema, ...errors },
        },
      },
      (req, scope) => createPrompt(ctx, context(scope), req.body),
    );
  };
  routeGroup(app, { errors: 'string', tag: { name: 'prompts', title: 'Prompts' } }, listAndCreate);

  routeGroup(app, { prefix: '/api/prompts', errors: 'string', tag: { name: 'prompts', title: 'Prompts' } }, (r, g) => {
    listAndCreate(r, g);
    const errors = g.errors(404, 409);
    const project = projectRoute(r);
    project.get(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'prompts:view' } },
        schema: {
          summary: 'One prompt by id or handle: the newest version, `handle:3` or `?version=3` for version 3, `handle:production` or `?tag=production` for a tag',
          params: idParams,
          querystring: selectionQuery,
          response: { 200: promptSchema, ...errors },
        },
      },
      (req, scope) => getPrompt(ctx, context(scope), req.params.id, selection(req.query)),
    );

    project.put(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'prompts:update' } },
        schema: {
          summary: 'Save a new version (commitMessage required); fields not sent carry over from the newest version',
          params: idParams,
          body: updatePromptBody,
          response: { 200: promptSchema, ...errors },
        },
      },
      (req, scope) => updatePrompt(ctx, context(scope), req.params.id, req.body),
    );

    project.delete(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'prompts:delete' } },
        schema: {
          summary: 'Delete a prompt with all its versions and tags',
          params: idParams,
          response: { 200: z.object({ id: z.string(), handle: z.string(), deleted: z.literal(true) }), ...errors },
        },
      },
      (req, scope) => deletePrompt(ctx, context(scope), req.params.id),
    );

    project.get(
      '/:id/versions',
      {
        config: { auth: { scope: 'project', permission: 'prompts:view' } },
        schema: { summary: 'Every version of a prompt, newest first', params: idParams, response: { 200: z.array(promptSchema), ...errors } },
      },
      (req, scope) => listVersions(ctx, context(scope), req.params.id),
    );

    project.post(
      '/:id/versions/:versionId/restore',
      {
        config: { auth: { scope: 'project', permission: 'prompts:update' } },
        schema: {
          summary: 'Save a new version that copies an old one',
          params: restoreParams,
          body: restoreBody,
          response: { 200: promptSchema, ...errors },
        },
      },
      (req, scope) => restoreVersion(ctx, context(scope), req.params.id, req.params.versionId, req.body ?? {}),
    );

    project.put(
      '/:id/tags/:tag',
      {
        config: { auth: { scope: 'project', permission: 'prompts:update' } },
        schema: {
          summary: 'Point a tag (production, staging, or a custom one) at a version; moves it if it pointed elsewhere',
          params: tagParams,
          body: tagBody,
          response: { 200: tagSchema, ...errors },
        },
      },
      (req, scope) => setTag(ctx, context(scope), req.params.id, req.params.tag, req.body),
    );

    project.delete(
      '/:id/tags/:tag',
      {
        config: { auth: { scope: 'project', permission: 'prompts:update' } },
        schema: {
          summary: 'Remove a tag',
          params: tagParams,
          response: { 200: z.object({ promptId: z.string(), tag: z.string(), deleted: z.literal(true) }), ...errors },
        },
      },
      (req, scope) => deleteTag(ctx, context(scope), req.params.id, req.params.tag),
    );

    project.post(
      '/:id/compile',
      {
        config: { auth: { scope: 'project', permission: 'prompts:view' } },
        schema: {
          summary: 'Render the prompt and messages with {variables}; a variable the template uses is required (400 naming it)',
          params: idParams,
          querystring: selectionQuery,
          body: compileBody,
          response: { 200: promptSchema.extend({ variables: z.record(z.string(), z.unknown()) }), ...errors },
        },
      },
      (req, scope) => compilePrompt(ctx, context(scope), req.params.id, req.body.variables, selection(req.query)),
    );
  });

  routeGroup(app, { prefix: '/api/prompts', errors: 'nested', tag: { name: 'prompts', title: 'Prompts' } }, (r, g) => {
    projectRoute(r).post(
      '/:id/run',
      {
        // Costs money and writes a trace: traces:create (MEMBER, ADMIN, project keys; not readonly keys or VIEWERs), and prompts:view.
        config: { auth: { scope: 'project', permission: 'traces:create' } },
        schema: {
          summary: '"Try it" and the playground: run a version with model parameters and tools; the run is recorded as a trace of the project',
          description:
            'With `Accept: text/event-stream` the answer streams as server-sent events, each `data: <json>`: `{type: "text", text}` as tokens arrive, ' +
            '`{type: "tool_call", id, name, arguments}` for each tool the model calls, then `{type: "done", ...}` with the answer below (ttft_ms included), ' +
            'or `{type: "error", error: {type, code, message}}` when the provider fails mid-stream. A failure before the first event answers as without streaming.',
          params: idParams,
          body: runBody,
          response: { 200: runResponse, ...g.errors(404, 502, 503, 504) },
        },
      },
      async (req, scope, reply) => {
        if (!scope.principal.projectPermissions(scope.projectId).has('prompts:view')) throw forbidden('running a prompt also needs the prompts:view permission');
        // A client that gives up stops the provider call made on its behalf.
        const controller = new AbortController();
        const onClose = () => {
          if (!reply.raw.writableEnded) controller.abort(new Error('the client closed the connection'));
        };
        reply.raw.once('close', onClose);
        try {
          if (!(req.headers.accept ?? '').toLowerCase().includes('text/event-stream')) return await runVersion(ctx, context(scope), req.params.id, req.body, controller.signal);
          return await streamRun(reply, (onEvent) => runVersion(ctx, context(scope), req.params.id, req.body, controller.signal, onEvent));
        } finally {
          reply.raw.off('close', onClose);
        }
      },
    );
  });
}

/**
 * A run as server-sent events. The stream opens at the first event, so a run refused or failed
 * before it (a bad variable, the provider's 401) answers with its status as JSON.
 */
async function streamRun(reply: FastifyReply, run: (onEvent: (event: RunStreamEvent) => void) => Promise<RunResponse>): Promise<FastifyReply> {
  let open = false;
  const write = (event: Record<string, unknown>) => {
    if (!open) {
      open = true;
      void reply.hijack();
      const headers = Object.fromEntries(Object.entries(reply.getHeaders()).filter(([, v]) => v !== undefined)) as Record<string, string | number | string[]>;
      reply.raw.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    }
    if (!reply.raw.writableEnded) reply.raw.write(`data: ${JSON.stringify(event)}\n\n`);
  };
  try {
    const answer = await run(write);
    write({ type: 'done', ...answer });
  } catch (err) {
    if (!open) throw err;
    const failure = err instanceof AppError ? err : new AppError(502, 'provider_error', 'the model provider failed mid-stream');
    // A client that went away stopped the call itself: nothing to report.
    if (!(err instanceof AppError) && !reply.raw.destroyed) reply.log.error({ err }, 'prompt run stream failed');
    write({ type: 'error', ...(renderError(failure, 'nested') as Record<string, unknown>) });
  }
  reply.raw.end();
  return reply;
}
