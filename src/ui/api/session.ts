import { useQuery, useQueryClient } from '@tanstack/react-query';
import { GET, PATCH, POST, isUnauthorized, setCsrfToken, type Answer } from './client.ts';
import type { components } from './openapi.gen.ts';

type Schemas = components['schemas'];
export type Session = Schemas['Session'];
export type InvitationInfo = Answer<'/api/auth/invitations/{token}', 'get'>;

export const SESSION_KEY = ['session'] as const;
/** An invitation or password-reset link's query. */
const linkKey = (kind: LinkKind, token: string) => ['link', kind, token] as const;

/** The signed-in user's session, or null when signed out (401). */
export async function fetchSession(): Promise<Session | null> {
  try {
    const session = await GET('/api/auth/session');
    setCsrfToken(session.csrfToken);
    return session;
  } catch (e) {
    if (isUnauthorized(e)) {
      setCsrfToken(null);
      return null;
    }
    throw e;
  }
}

export function useSession() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: 60_000, retry: false });
}

/** After sign-in, set-password or an organization switch: the new session is the answer. */
export function useAcceptSession() {
  const client = useQueryClient();
  return (session: Session) => {
    setCsrfToken(session.csrfToken);
    client.setQueryData(SESSION_KEY, session);
  };
}

export const signIn = (body: { email: string; password: string }) => POST('/api/auth/signin', { body });

/** Sign out: the session ends on the server, and nothing of it stays in the page (token, cache). */
export function useSignOut() {
  const client = useQueryClient();
  return async () => {
    try {
      await POST('/api/auth/signout');
    } finally {
      setCsrfToken(null);
      client.clear();
      client.setQueryData(SESSION_KEY, null);
    }
  };
}

/** Into another of the user's organizations: its session, and nothing cached of the last one but the session. */
export function useSwitchOrganization() {
  const client = useQueryClient();
  const accept = useAcceptSession();
  return async (organizationId: string) => {
    const next = await PATCH('/api/auth/session', { body: { organizationId } });
    client.removeQueries({ predicate: (q) => q.queryKey[0] !== SESSION_KEY[0] });
    accept(next);
    return next;
  };
}

/** An invitation (`invite`) or a password reset (`reset`) link. */
export type LinkKind = 'invite' | 'reset';

/** Whose the link is and until when it works; a 404 (unknown, used, expired) is not retried. */
export function useLink(kind: LinkKind, token: string) {
  return useQuery({
    queryKey: linkKey(kind, token),
    queryFn: () =>
      kind === 'invite'
        ? GET('/api/auth/invitations/{token}', { params: { path: { token } } })
        : GET('/api/auth/password-reset/{token}', { params: { path: { token } } }),
    retry: false,
  });
}

/** Accept an invitation (with the new user's name) or a reset: the answer is the new session. */
export const acceptLink = (kind: LinkKind, token: string, body: { password: string; name?: string }) =>
  kind === 'invite'
    ? POST('/api/auth/invitations/{token}/accept', { params: { path: { token } }, body })
    : POST('/api/auth/password-reset/{token}', { params: { path: { token } }, body: { password: body.password } });

export const can = (session: Session | null | undefined, permission: string) => {
  if (!session) return false;
  const [resource] = permission.split(':');
  return session.permissions.includes(permission) || session.permissions.includes(`${resource}:manage`);
};

const LAST_PROJECT = 'spyglass.lastProject';
export const rememberProject = (id: string) => {
  try {
    localStorage.setItem(LAST_PROJECT, id);
  } catch {
    /* private mode */
  }
};
export const lastProject = (session: Session): string | null => {
  let id: string | null = null;
  try {
    id = localStorage.getItem(LAST_PROJECT);
  } catch {
    /* private mode */
  }
  return session.projects.find((p) => p.id === id)?.id ?? session.projects[0]?.id ?? null;
};
