import type { ApiResponse, RequestOptions, TestApp } from './harness.ts';

/** A signed-in browser, as far as the API sees it: the cookie and the CSRF token. */
export interface BrowserSession {
  cookie: string;
  csrfToken: string;
  /** The Session answer of the sign-in (or accept, or reset). */
  session: any;
}

/** The `spyglass_session=...` pair of an answer's Set-Cookie, or null when it sets none. */
export function sessionCookieOf(res: ApiResponse): string | null {
  for (const header of res.headers.getSetCookie()) {
    const pair = header.split(';')[0];
    if (pair.startsWith('spyglass_session=')) return pair;
  }
  return null;
}

/** A session from an answer that signs in (200 with Set-Cookie); fails loudly otherwise. */
export function sessionOf(res: ApiResponse): BrowserSession {
  const cookie = sessionCookieOf(res);
  if (res.status !== 200 || !cookie) throw new Error(`expected a signed-in answer, got ${res.status}: ${res.text}`);
  return { cookie, csrfToken: res.body.csrfToken, session: res.body };
}

export async function signIn(t: TestApp, email: string, password: string, headers: Record<string, string> = {}): Promise<BrowserSession> {
  return sessionOf(await t.request('POST', '/api/auth/signin', { body: { email, password }, headers }));
}

/**
 * Request options carrying the session cookie, and the CSRF header unless `csrf` is false
 * (or a string to send instead of the right token).
 */
export function asBrowser(s: BrowserSession, opts: RequestOptions & { csrf?: boolean | string } = {}): RequestOptions {
  const { csrf = true, ...rest } = opts;
  const headers: Record<string, string> = { ...(rest.headers ?? {}), cookie: s.cookie };
  if (csrf !== false) headers['x-csrf-token'] = typeof csrf === 'string' ? csrf : s.csrfToken;
  return { ...rest, headers };
}

/** Adds a member with an admin API key and accepts the invitation: the member's signed-in session. */
export async function inviteAndAccept(
  t: TestApp,
  adminToken: string,
  member: { email: string; role: 'ADMIN' | 'MEMBER' | 'VIEWER'; password?: string },
): Promise<BrowserSession & { userId: string }> {
  const added = await t.request('POST', '/api/members', { token: adminToken, body: { email: member.email, role: member.role } });
  if (added.status !== 200 || !added.body.invitation) throw new Error(`member not invited: ${added.status} ${added.text}`);
  const token = new URL(added.body.invitation.url).pathname.split('/').pop()!;
  const accepted = await t.request('POST', `/api/auth/invitations/${token}/accept`, {
    body: { password: member.password ?? 'member-password-1' },
  });
  return { ...sessionOf(accepted), userId: added.body.userId };
}
