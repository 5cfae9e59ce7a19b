import { AppError, notFound } from '../../platform/errors.ts';
import type { PasswordHasher } from './passwords.ts';
import type { SessionView } from './presenters.ts';

/* Accounts: signing in with e-mail and password, the browser sessions this gives (kept in the
 * database, so any process serves any session), invitation and password-reset links. */


export interface AccountOptions {
  sessions: { idleMs: number; maxAgeMs: number };
  signIn: { maxPerAccount: number; maxPerAddress: number; windowMs: number };
  /** Base of links (SPYGLASS_PUBLIC_URL); null: the origin of the request that asks for one. */
  publicUrl: string | null;
  passwords: PasswordHasher;
}

/** Who is signing in, as the request shows it. */
export interface Client {
  ip: string;
  userAgent: string | null;
}

/** A session just started: its view, and the cookie's token and lifetime. */
export interface StartedSession {
  session: SessionView;
  token: string;
  cookieExpiresAt: Date;
}

export const INVITATION_LIFETIME_MS = 7 * 86_400_000;
export const RESET_LIFETIME_MS = 3_600_000;
/** last_seen_at is written at most this often per session. */
export const TOUCH_INTERVAL_MS = 60_000;
/** Tokens of sessions, invitations and resets: 48 letters and digits (285 bits). */
export const TOKEN_PATTERN = /^[A-Za-z0-9]{48}$/;

export const invalidCredentials = () => new AppError(401, 'invalid_credentials', 'wrong e-mail or password');
export const invitationNotFound = () => notFound('invitation_not_found', 'this invitation link is unknown, used, revoked or expired');
export const resetNotFound = () => notFound('reset_not_found', 'this password-reset link is unknown, used or expired');

