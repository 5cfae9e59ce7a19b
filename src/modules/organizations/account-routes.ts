import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { orgRoute, projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import { AppError } from '../../platform/errors.ts';
import { clearSessionCookie, setSessionCookie } from '../../platform/auth/index.ts';
import type { Client, StartedSession } from './account-rules.ts';
import type { OrganizationsContext } from './context.ts';
import { changePassword } from './change-password.ts';
import { acceptInvitation, invitationInfo, listInvitations, revokeInvitation } from './invitations.ts';
import { issueReset, resetInfo, resetPassword } from './resets.ts';
import { describe, listSessions, revokeSession, signIn, signOut, switchOrganization } from './sessions.ts';
import {
  acceptInvitationBody,
  changePasswordBody,
  idParams,
  invitationInfoSchema,
  pendingInvitationSchema,
  resetInfoSchema,
  resetLinkSchema,
  resetPasswordBody,
  sessionListSchema,
  sessionSchema,
  signInBody,
  switchOrganizationBody,
  tokenParams,
  userIdParams,
} from './schemas.ts';

const publicRoute = { auth: { scope: 'public' as const } };
const sessionRoute = { auth: { scope: 'session' as const } };
const noCredentials: Record<string, string[]>[] = [];
const cookieCredential = [{ session_cookie: [] as string[] }];
const adminRoute = { auth: { scope: 'organization' as const, permission: 'organization:manage' as const } };

export const clientOf = (req: FastifyRequest): Client => ({ ip: req.ip, userAgent: req.headers['user-agent'] ?? null });
/** Where the request came to: links fall back to it when SPYGLASS_PUBLIC_URL is unset. */
export const originOf = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

/** Answers holding a CSRF token or a one-time link are never cached. */
export const noStore = async (_req: FastifyRequest, reply: FastifyReply) => {
  void reply.header('cache-control', 'no-store');
};

/** Answers the new session and sets its cookie. */
function signedIn(req: FastifyRequest, reply: FastifyReply, started: StartedSession) {
  setSessionCookie(req, reply, started.token, started.cookieExpiresAt);
  return started.session;
}

/** 429 answers say when to come back. */
async function withRetryAfter<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AppError && typeof err.meta?.retryAfterSeconds === 'number') {
      void reply.header('retry-after', String(err.meta.retryAfterSeconds));
    }
    throw err;
  }
}

/** Sign-in, sessions, invitation and password-reset links: the nested error shape. */
export function accountRoutes(app: FastifyInstance, ctx: OrganizationsContext) {
  routeGroup(app, { prefix: '/api/auth', errors: 'nested', tag: { name: 'sign-in', title: 'Signing in' } }, (r, g) => {
    const session = orgRoute(r);

    r.post(
      '/signin',
      {
        config: publicRoute,
        onSend: noStore,
        schema: {
          summary: 'Sign in with e-mail and password; sets the session cookie',
          description:
            'Rate-limited per account and per client address (429 too_many_attempts with Retry-After). A wrong password and an unknown e-mail get the same 401 invalid_credentials.',
          security: noCredentials,
          body: signInBody,
          response: { 200: sessionSchema, ...g.errors(401, 403, 429) },
        },
      },
      (req, reply) => withRetryAfter(reply, async () => signedIn(req, reply, await signIn(ctx, req.body, clientOf(req)))),
    );

    // langwatch.login() pastes a key and checks it here (X-Auth-Token, body {}): 401 when it is not valid.
    projectRoute(r).post(
      '/validate',
      {
        config: { auth: { scope: 'project', permission: null } },
        schema: {
          summary: "Check an API key: the project it acts on (what the LangWatch SDKs' login() calls)",
          body: z.looseObject({}).optional(),
          response: { 200: z.object({ projectSlug: z.string().describe('The project id (LangWatch names it a slug)'), projectId: z.string() }) },
        },
      },
      (_req, { projectId }) => ({ projectSlug: projectId, projectId }),
    );

    session.get(
      '/session',
      {
        config: sessionRoute,
        onSend: noStore,
        schema: { summary: 'The signed-in user, the active organization, its projects, the role and the CSRF token', security: cookieCredential, response: { 200: sessionSchema } },
      },
      (req, { principal }) => describe(ctx, principal),
    );

    session.patch(
      '/session',
      {
        config: sessionRoute,
        onSend: noStore,
        schema: {
          summary: 'Switch the active organization (404 when not a member)',
          security: cookieCredential,
          body: switchOrganizationBody,
          response: { 200: sessionSchema, ...g.errors(404) },
        },
      },
      (req, { principal }) => switchOrganization(ctx, principal, req.body.organizationId),
    );

    session.post(
      '/signout',
      {
        config: sessionRoute,
        schema: { summary: 'Sign out: revokes this session and clears the cookie', security: cookieCredential, response: { 200: z.object({ signedOut: z.literal(true) }) } },
      },
      async (req, { principal }, reply) => {
        const answer = await signOut(ctx, principal);
        clearSessionCookie(req, reply);
        return answer;
      },
    );

    session.get(
      '/sessions',
      {
        config: sessionRoute,
        schema: { summary: "The signed-in user's active sessions, newest first", security: cookieCredential, response: { 200: sessionListSchema } },
      },
      async (_req, { principal }) => ({ data: await listSessions(ctx, principal) }),
    );

    session.delete(
      '/sessions/:id',
      {
        config: sessionRoute,
        schema: {
          summary: 'Revoke one of your sessions (it gets 401 at once); others\' ids answer 404',
          security: cookieCredential,
          params: idParams,
          response: { 200: z.object({ id: z.string(), revoked: z.literal(true) }), ...g.errors(404) },
        },
      },
      async (req, { principal }, reply) => {
        const answer = await revokeSession(ctx, principal, req.params.id);
        if (req.params.id === principal.keyId) clearSessionCookie(req, reply);
        return answer;
      },
    );

    session.post(
      '/password',
      {
        config: sessionRoute,
        schema: {
          summary: 'Change your password; your other sessions are revoked',
          security: cookieCredential,
          body: changePasswordBody,
          response: { 200: z.object({ changed: z.literal(true) }), ...g.errors(429) },
        },
      },
      (req, { principal }, reply) => withRetryAfter(reply, () => changePassword(ctx, principal, req.body, clientOf(req))),
    );

    r.get(
      '/invitations/:token',
      {
        config: publicRoute,
        schema: { summary: 'What an invitation link is for (404 invitation_not_found when unknown, used or expired)', security: noCredentials, params: tokenParams, response: { 200: invitationInfoSchema, ...g.errors(404) } },
      },
      (req) => invitationInfo(ctx, req.params.token),
    );

    r.post(
      '/invitations/:token/accept',
      {
        config: publicRoute,
        onSend: noStore,
        schema: {
          summary: 'Accept an invitation: set a password and be signed in',
          security: noCredentials,
          params: tokenParams,
          body: acceptInvitationBody,
          response: { 200: sessionSchema, ...g.errors(404) },
        },
      },
      async (req, reply) => signedIn(req, reply, await acceptInvitation(ctx, req.params.token, req.body, clientOf(req))),
    );

    r.get(
      '/password-reset/:token',
      {
        config: publicRoute,
        schema: { summary: 'Whose a password-reset link is (404 reset_not_found when unknown, used or expired)', security: noCredentials, params: tokenParams, response: { 200: resetInfoSchema, ...g.errors(404) } },
      },
      (req) => resetInfo(ctx, req.params.token),
    );

    r.post(
      '/password-reset/:token',
      {
        config: publicRoute,
        onSend: noStore,
        schema: {
          summary: "Set a new password with a reset link and be signed in; every other session of the user is revoked",
          security: noCredentials,
          params: tokenParams,
          body: resetPasswordBody,
          response: { 200: sessionSchema, ...g.errors(404) },
        },
      },
      async (req, reply) => signedIn(req, reply, await resetPassword(ctx, req.params.token, req.body, clientOf(req))),
    );

  });

  routeGroup(app, { prefix: '/api/invitations', errors: 'nested', tag: { name: 'organization', title: 'Organizations, members and projects' } }, (r, g) => {
    const org = orgRoute(r);

    org.get(
      '/',
      {
        config: adminRoute,
        schema: { summary: 'Pending invitations of the organization, newest first', response: { 200: z.object({ data: z.array(pendingInvitationSchema) }) } },
      },
      async (_req, { principal }) => ({ data: await listInvitations(ctx, principal) }),
    );

    org.delete(
      '/:id',
      {
        config: adminRoute,
        schema: {
          summary: 'Revoke a pending invitation: the link stops working and the invitee, who never set a password, leaves the organization',
          params: idParams,
          response: { 200: z.object({ id: z.string(), revoked: z.literal(true) }), ...g.errors(404) },
        },
      },
      (req, { principal }) => revokeInvitation(ctx, principal, req.params.id),
    );

  });

  routeGroup(app, { prefix: '/api/members', errors: 'nested', tag: { name: 'organization', title: 'Organizations, members and projects' } }, (r, g) => {
    orgRoute(r).post(
      '/:userId/password-reset',
      {
        config: adminRoute,
        onSend: noStore,
        schema: {
          summary: 'A one-time link (1 hour) for the member to set a new password; 409 when the member also belongs to other organizations',
          params: userIdParams,
          response: { 200: resetLinkSchema, ...g.errors(404, 409) },
        },
      },
      (req, { principal }) => issueReset(ctx, principal, req.params.userId, originOf(req)),
    );
  });
}
