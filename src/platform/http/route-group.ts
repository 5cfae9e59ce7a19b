import type {
  ContextConfigDefault,
  FastifyError,
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteOptions,
  RouteShorthandOptions,
} from 'fastify';
import type { ResolveFastifyReplyReturnType } from 'fastify/types/type-provider.js';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { AuthRequirement, Principal } from '../auth/index.ts';
import { errorResponses, errorSchemas, renderError, type AppError, type ErrorShape } from '../errors.ts';
import { errorHandler } from './error-handler.ts';

/** The Fastify instance a group's routes are declared on: zod schemas type requests and answers. */
export type Router = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

/**
 * The section of the API reference a route is listed under: `name` is the OpenAPI tag clients
 * see, `title` the heading people read (docs/api-reference.md, the document's `tags`).
 */
export interface ApiTag {
  name: string;
  title: string;
}

/** The extension that carries a tag's title on an operation, gathered into the document's `tags` (openapi-document.ts). */
export const TAG_TITLE = 'x-tag-title';

/** What a route's schema spells to be listed under `tag`: routes of a group get it from the group; routes outside one (health, metrics, MCP) spread it. */
export const tagged = (tag: ApiTag) => ({ tags: [tag.name], [TAG_TITLE]: tag.title });

export interface RouteGroupOptions {
  /** The section of the API reference every route of the group is listed under. */
  tag: ApiTag;
  /** Prepended to every route's path (`/api/annotations` + `/:id`); omit it when the routes spell whole paths. */
  prefix?: string;
  /** How the group answers every error: one of the interface's three shapes (spec: Errors; platform/errors.ts). */
  errors: ErrorShape;
  /** Errors the group answers otherwise than the house does (a contract's own codes); null: the house's answer. */
  mapError?: (error: FastifyError, request: FastifyRequest) => AppError | null;
}

export interface RouteGroup {
  /**
   * Response schemas, in the group's shape, for the error statuses a route answers beyond
   * those every route of a group documents by itself (see `routeGroup`): `...g.errors(404, 409)`.
   */
  errors(...statuses: number[]): Record<number, z.ZodType>;
}

/**
 * A resource's routes as one Fastify plugin: its prefix, its error shape, its OpenAPI
 * error responses. Inside the group:
 * - every error (thrown by the handler, by authentication, by validation) is answered in
 *   the group's shape (`renderError`);
 * - every route is listed in the API reference under the group's tag (its name and title);
 * - every route documents the error statuses it can answer without saying so: 400 (input,
 *   or a character PostgreSQL cannot store), 401 and 403 (all but public routes), 404 for
 *   routes about the project named in the path (`projectParam`), 413 and 415 for routes
 *   with a body; a route adds the others it answers with `g.errors(404, ...)`;
 * - `projectRoute` / `orgRoute` hand a handler its scope, typed and never null.
 *
 * @example
 * // src/modules/datasets/routes.ts
 * export function datasetRoutes(app: FastifyInstance, service: DatasetService) {
 *   routeGroup(app, { prefix: '/api/datasets', errors: 'nested', tag: { name: 'datasets', title: 'Datasets' } }, (r, g) => {
 *     r.get(
 *       '/:id',
 *       {
 *         config: { auth: { scope: 'project', permission: 'datasets:view' } },
 *         schema: { params: idParams, response: { 200: datasetSchema, ...g.errors(404) } },
 *       },
 *       projectRoute((req, { projectId }) => service.get(projectId, req.params.id)),
 *     );
 *   });
 * }
 *
 * Groups are registered (and their routes added) in the order the module functions are
 * called, when the app is next awaited (`app.ready()`).
 */
export function routeGroup(app: FastifyInstance, options: RouteGroupOptions, routes: (r: Router, group: RouteGroup) => void): void {
  const shape = options.errors;
  void app.register(
    (child, _opts, done) => {
      const handle = errorHandler(shape);
      const { mapError } = options;
      child.setErrorHandler(
        mapError
          ? (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
              const mapped = mapError(error, request);
              if (mapped) return void reply.status(mapped.status).send(renderError(mapped, shape));
              handle(error, request, reply);
            }
          : handle,
      );
      child.addHook('onRoute', (route) => document(route, shape, options.tag));
      routes(child.withTypeProvider<ZodTypeProvider>(), { errors: (...statuses) => errorResponses(shape, statuses) });
      done();
    },
    options.prefix ? { prefix: options.prefix } : {},
  );
}

/** Lists a route of a group under the group's tag and adds the error statuses every route of a group can answer to its response schemas. */
function document(route: RouteOptions, shape: ErrorShape, tag: ApiTag) {
  const auth = route.config?.auth;
  if (!route.schema || route.schema.hide) return;
  const statuses = [400];
  if (auth && auth.scope !== 'public') statuses.push(401, 403);
  if (auth?.scope === 'projectParam') statuses.push(404);
  if (route.schema.body) statuses.push(413, 415);
  const response = (route.schema.response ?? {}) as Record<number, unknown>;
  const added = Object.fromEntries(statuses.filter((s) => !(s in response)).map((s) => [s, errorSchemas[shape]]));
  route.schema = { ...route.schema, ...tagged(tag), response: { ...response, ...added } };
}

/** The scope a request is made in: who calls, and the project (on project routes). */
export interface OrganizationScope {
  principal: Principal;
  organizationId: string;
  /** The user a personal key or a session acts as; null for service and project keys. */
  userId: string | null;
}

export interface ProjectScope extends OrganizationScope {
  /** The project the route acts on (from the key, X-Project-Id, or the path for `projectParam` routes). */
  projectId: string;
}

/** One HTTP method of a scoped router: Fastify's shorthand, with the handler given the request's scope. */
export type ScopedMethod<Scope> = <const S extends FastifySchema = FastifySchema>(
  path: string,
  opts: RouteShorthandOptions<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, RouteGenericInterface, ContextConfigDefault, S, ZodTypeProvider>,
  handler: (
    req: FastifyRequest<RouteGenericInterface, RawServerDefault, RawRequestDefaultExpression, S, ZodTypeProvider>,
    scope: Scope,
    reply: FastifyReply<RouteGenericInterface, RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, ContextConfigDefault, S, ZodTypeProvider>,
  ) => ResolveFastifyReplyReturnType<ZodTypeProvider, S, RouteGenericInterface>,
) => void;

/** Routes whose handlers are handed their scope: `scoped.get(path, options, (req, scope, reply) => ...)`. */
export interface ScopedRouter<Scope> {
  get: ScopedMethod<Scope>;
  post: ScopedMethod<Scope>;
  put: ScopedMethod<Scope>;
  patch: ScopedMethod<Scope>;
  delete: ScopedMethod<Scope>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function scopedRouter<Scope>(r: Router, scopes: AuthRequirement['scope'][], scopeOf: (req: FastifyRequest) => Scope): ScopedRouter<Scope> {
  const method =
    (m: (typeof METHODS)[number]): ScopedMethod<Scope> =>
    (path, opts, handler) => {
      const scope = opts.config?.auth?.scope;
      if (!scope || !scopes.includes(scope)) throw new Error(`route ${m.toUpperCase()} ${path}: declare config.auth with scope ${scopes.join(' or ')} (not ${scope ?? 'none'})`);
      r[m](path, opts as never, ((req: never, reply: never) => handler(req, scopeOf(req), reply)) as never);
    };
  return Object.fromEntries(METHODS.map((m) => [m, method(m)])) as unknown as ScopedRouter<Scope>;
}

/**
 * Project routes (`auth.scope` project, or projectParam: the project named in the path):
 * `projectRoute(r).get('/:id', options, (req, { projectId, principal }) => ...)`.
 */
export const projectRoute = (r: Router): ScopedRouter<ProjectScope> => scopedRouter(r, ['project', 'projectParam'], projectScope);

/** Organization routes (`auth.scope` organization, projectParam or session), handed the caller: `orgRoute(r).post('/', options, (req, { principal }) => ...)`. */
export const orgRoute = (r: Router): ScopedRouter<OrganizationScope> => scopedRouter(r, ['organization', 'projectParam', 'session'], organizationScope);

/** The scope of a request that passed a project route's authentication. */
export function projectScope(req: FastifyRequest): ProjectScope {
  const { principal, projectId } = req;
  if (!principal || !projectId) throw new Error(`${req.method} ${req.url}: no project scope (the route is not a project route)`);
  return { principal, organizationId: principal.organizationId, userId: principal.userId, projectId };
}

/** The scope of a request that passed an organization (or session) route's authentication. */
export function organizationScope(req: FastifyRequest): OrganizationScope {
  const { principal } = req;
  if (!principal) throw new Error(`${req.method} ${req.url}: no principal (the route is public)`);
  return { principal, organizationId: principal.organizationId, userId: principal.userId };
}
