import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, isUnauthorized, setCsrfToken } from './client.ts';
import type { Session } from './types.ts';

export type { Session } from './types.ts';

export const SESSION_KEY = ['session'] as const;

/** The signed-in user's session, or null when signed out (401). */
export async function fetchSession(): Promise<Session | null> {
  try {
    const session = await api<Session>('GET', '/api/auth/session');
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
