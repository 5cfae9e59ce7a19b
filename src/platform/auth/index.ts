import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import { AppError, badRequest, forbidden, unauthorized } from '../errors.ts';
import type { Clock } from '../clock.ts';
import { PermissionSet } from './permissions.ts';
import type { Permission } from './permissions.schema.ts';

export * from './permissions.schema.ts';
export * from './permissions.ts';
export * from './policy.ts';

export type KeyType = 'project' | 'personal' | 'service';

/** What a valid API key or session may do, with caps and permission mode already applied. */
export interface Principal {
  /** The API key's id, or the session's id. */
  keyId: string;
  /** `session`: a signed-in browser session (the session cookie), acting as its user. */
  keyType: KeyType | 'session';
  organizationId: string;
  /** The owner of a personal key (it acts as this user); null for service and project keys. */
  userId: string | null;
  /** The project of a project key. */
  projectId: string | null;
  organizationPermissions: PermissionSet;
  projectPermissions(projectId: string): PermissionSet;
  /** Sessions only: what requests other than GET, HEAD and OPTIONS must send in X-CSRF-Token. */
  csrfToken?: string;
}

/** The cookie of a browser session; its value is an opaque token. */
export const SESSION_COOKIE = 'spyglass_session';

/** Implemented by the api-keys and organizations modules, handed in by app.ts. */
export interface CredentialStore {
  /** The principal of a token; null when it is malformed, unknown, revoked or expired. */
  resolve(token: string, now: Date): Promise<Principal | null>;
  /**
   * The principal of a session cookie's token (keyType `session`, with its csrfToken); null
   * when unknown, revoked, expired, or its user is no longer a member of its organization.
   */
  resolveSession(token: string, now: Date): Promise<Principal | null>;
  /** The organization a project belongs to; null when there is no such project. */
  projectOrganization(projectId: string): Promise<string | null>;
}

/**
 * Every route declares what it needs:
 * - public: no credentials.
 * - project: a project route; the project comes from the key (project keys), from Basic
 *   `projectId:token`, or from `X-Project-Id` (organization keys); `permission` on that
 *   project, or null when the handler applies finer rules (the MCP endpoint: each of its
 *   tools is a route with its own permission).
 * - organization: an organization key; `permission` at organization scope, or null when
 *   the service applies finer rules (e.g. listing only the projects the key can see).
 * - projectParam: an organization route about the project named by a path parameter.
 * - session: a route about the signed-in user's own session; only the session cookie
 *   reaches it (API keys get 403).
 */
export type AuthRequirement =
  | { scope: 'public' }
  | { scope: 'project'; permission: Permission | null }
  | { scope: 'organization'; permission: Permission | null }
  | { scope: 'projectParam'; param: string; permission: Permission }
  | { scope: 'session' };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The project a project-scoped route acts on. */
    projectId: string | null;
  }
}

export interface RouteAuthEntry {
  method: string;
  url: string;
  auth: AuthRequirement;
}

interface Credentials {
  kind: 'apiKey' | 'session';
  token: string;
  projectId: string | null;
}

/** The headers API-key credentials travel in: HTTP headers, or gRPC metadata (OTLP over gRPC). */
export interface CredentialHeaders {
  authorization?: string | null;
  'x-auth-token'?: string | string[] | null;
  'x-project-id'?: string | string[] | null;
}

/**
 * Credentials, in this order: Basic projectId:token, Bearer, X-Auth-Token, and only when
 * none of those headers is there, the session cookie.
 */
export function readCredentials(request: FastifyRequest): Credentials | null {
  const apiKey = readKeyCredentials(request.headers);
  if (apiKey) return apiKey;
  const session = request.cookies?.[SESSION_COOKIE];
  if (session) return { kind: 'session', token: session, projectId: single(request.headers['x-project-id']) };
  return null;
}

/** Basic projectId:token, Bearer, X-Auth-Token, in that order; null when none is sent. */
function readKeyCredentials(headers: CredentialHeaders): Credentials | null {
  const header = headers.authorization;
  const projectHeader = single(headers['x-project-id']);
  if (header) {
    const space = header.indexOf(' ');
    const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
    const value = space < 0 ? '' : header.slice(space + 1).trim();
    if (scheme === 'basic') {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      // A NUL would reach the project lookup, and PostgreSQL text cannot hold one.
      if (colon <= 0 || decoded.includes('\u0000')) throw unauthorized('Basic credentials must be base64(projectId:token)');
      return { kind: 'apiKey', projectId: decoded.slice(0, colon), token: decoded.slice(colon + 1) };
    }
    if (scheme === 'bearer') {
      if (!value) throw unauthorized('the Bearer token is empty');
      return { kind: 'apiKey', token: value, projectId: projectHeader };
    }
    throw unauthorized(`unsupported Authorization scheme "${scheme}"; use Basic or Bearer`);
  }
  const authToken = single(headers['x-auth-token']);
  if (authToken) return { kind: 'apiKey', token: authToken, projectId: projectHeader };
  return null;
}

/**
 * An API key acting on a project, outside Fastify (OTLP over gRPC reads the same headers
 * from its metadata): the same answers as a project route's, 401 or 403 as AppErrors.
 */
export async function authenticateProjectKey(
  store: CredentialStore,
  clock: Clock,
  headers: CredentialHeaders,
  permission: Permission,
): Promise<{ principal: Principal; projectId: string }> {
  const credentials = readKeyCredentials(headers);
  if (!credentials) throw unauthorized('missing credentials: send Authorization: Bearer <token>, Basic base64(projectId:token), or X-Auth-Token');
  const principal = await store.resolve(credentials.token, clock.now());
  if (!principal) throw unauthorized('invalid, expired or revoked API key');
  return { principal, projectId: await projectAccess(principal, credentials, store, permission) };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Cookie-authenticated requests that change something must echo the session's CSRF token. */
function checkCsrf(request: FastifyRequest, principal: Principal) {
  if (SAFE_METHODS.has(request.method)) return;
  const sent = Buffer.from(single(request.headers['x-csrf-token']) ?? '');
  const expected = Buffer.from(principal.csrfToken ?? '');
  if (expected.length === 0 || sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
    throw new AppError(403, 'csrf_token_invalid', 'missing or wrong X-CSRF-Token header: send the csrfToken of GET /api/auth/session', {
      field: 'X-CSRF-Token',
    });
  }
}

/**
 * Sets the session cookie: HttpOnly (no script reads it), SameSite=Lax (no cross-site
 * sub-request carries it), Secure when the request came over https.
 */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, expiresAt: Date) {
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: request.protocol === 'https',
    expires: expiresAt,
  });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply) {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: request.protocol === 'https' });
}

function single(v: string | string[] | null | undefined): string | null {
  const s = Array.isArray(v) ? v[0] : v;
  return s && s.trim() ? s.trim() : null;
}

/**
 * Installs the route table (every route must declare `config.auth`; tests read the
 * table) and the hook that turns credentials into a principal and checks the permission.
 * Registers cookie parsing first, so the hook sees the session cookie.
 */
export async function installAuth(app: FastifyInstance, store: CredentialStore, clock: Clock): Promise<RouteAuthEntry[]> {
  await app.register(cookie);
  const table: RouteAuthEntry[] = [];
  app.decorateRequest('principal', null);
  app.decorateRequest('projectId', null);

  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (!auth) throw new Error(`route ${String(route.method)} ${route.url} declares no config.auth`);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      table.push({ method, url: route.url, auth });
    }
  });

  app.addHook('onRequest', async (request) => {
    const auth = request.routeOptions.config.auth;
    if (!auth || auth.scope === 'public') return;
    const credentials = readCredentials(request);
    if (!credentials) {
      throw unauthorized(
        auth.scope === 'session'
          ? 'not signed in: POST /api/auth/signin first (this route takes the session cookie)'
          : 'missing credentials: send Authorization: Bearer <token>, Basic base64(projectId:token), or X-Auth-Token, or sign in',
      );
    }
    let principal: Principal | null;
    if (credentials.kind === 'session') {
      principal = await store.resolveSession(credentials.token, clock.now());
      if (!principal) throw unauthorized('the session has expired or was revoked: sign in again');
      checkCsrf(request, principal);
    } else {
      principal = await store.resolve(credentials.token, clock.now());
      if (!principal) throw unauthorized('invalid, expired or revoked API key');
    }
    request.principal = principal;

    if (auth.scope === 'session') {
      if (principal.keyType !== 'session') {
        throw new AppError(403, 'session_required', 'this route is about a signed-in session; API keys cannot call it');
      }
      return;
    }

    if (auth.scope === 'project') {
      request.projectId = await projectAccess(principal, credentials, store, auth.permission);
      return;
    }
    if (principal.keyType === 'project') {
      throw forbidden('project keys cannot call organization routes; use an organization API key (sg-...)');
    }
    if (auth.scope === 'organization') {
      if (auth.permission && !principal.organizationPermissions.has(auth.permission)) {
        throw forbidden(`${who(principal)} lacks the ${auth.permission} permission on the organization`);
      }
      return;
    }
    const projectId = (request.params as Record<string, string>)[auth.param];
    const organizationId = projectId ? await store.projectOrganization(projectId) : null;
    if (organizationId !== principal.organizationId) {
      throw new AppError(404, 'project_not_found', `no project ${projectId} in this organization`);
    }
    if (!principal.projectPermissions(projectId).has(auth.permission)) {
      throw forbidden(`${who(principal)} lacks the ${auth.permission} permission on project ${projectId}`);
    }
    request.projectId = projectId;
  });

  return table;
}

const who = (principal: Principal) => (principal.keyType === 'session' ? 'your role' : 'this key');

/** The project a project route acts on, once the caller holds `permission` there. */
async function projectAccess(principal: Principal, credentials: Credentials, store: CredentialStore, permission: Permission | null): Promise<string> {
  const projectId = await resolveProject(principal, credentials, store);
  if (permission && !principal.projectPermissions(projectId).has(permission)) {
    throw forbidden(`${who(principal)} lacks the ${permission} permission on project ${projectId}`);
  }
  return projectId;
}

async function resolveProject(principal: Principal, credentials: Credentials, store: CredentialStore): Promise<string> {
  if (principal.keyType === 'project') {
    if (credentials.projectId && credentials.projectId !== principal.projectId) {
      throw unauthorized(`this project key does not belong to project ${credentials.projectId}`);
    }
    return principal.projectId!;
  }
  if (!credentials.projectId) {
    throw badRequest(
      'missing_project',
      'organization keys and sessions must name the project: send the X-Project-Id header (or Basic projectId:token)',
      'X-Project-Id',
    );
  }
  const organizationId = await store.projectOrganization(credentials.projectId);
  if (organizationId !== principal.organizationId) {
    // Unknown and foreign projects answer alike: no tenant learns another's project ids.
    throw forbidden(`this key has no access to project ${credentials.projectId}`);
  }
  return credentials.projectId;
}
