import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, appDatabaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';
import { asBrowser, sessionOf, signIn } from '../support/sessions.ts';
import { startSmtp } from '../support/smtp.ts';

const DAY = 86_400_000;
const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

describe.each(appDatabaseKinds)('invitations and password resets (%s)', (kind) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
  const admin = () => ({ token: t.creds.adminApiKey });
  const addMember = (email: string, role = 'MEMBER', app = t) => app.request('POST', '/api/members', { ...admin(), body: { email, role } });

  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startApp(kind, { clock, env: { SMTP_URL: smtp.url, SMTP_FROM: 'Spyglass <noreply@spyglass.test>' } });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('adding a member gives a one-time invitation link (also mailed); the invitee sets a password and is signed in with the role', async () => {
    const added = await addMember('viewer@acme.test', 'VIEWER');
    expect(added.status).toBe(200);
    expect(added.headers.get('cache-control')).toBe('no-store');
    const expiresAt = new Date(clock.now().getTime() + 7 * DAY).toISOString();
    expect(added.body).toMatchObject({ email: 'viewer@acme.test', role: 'VIEWER', invitation: { id: expect.stringMatching(/^inv_/), expiresAt } });
    const { url } = added.body.invitation;
    expect(url).toMatch(new RegExp(`^${t.baseUrl}/invite/[A-Za-z0-9]{48}$`));

    const mail = await smtp.waitFor('viewer@acme.test', url);
    expect(mail.from).toBe('noreply@spyglass.test');
    expect(mail.text).toContain('as VIEWER');

    const pending = await t.request('GET', '/api/invitations', admin());
    expect(pending.status).toBe(200);
    const listed = pending.body.data.find((i: { id: string }) => i.id === added.body.invitation.id);
    expect(listed).toEqual({
      id: added.body.invitation.id,
      email: 'viewer@acme.test',
      role: 'VIEWER',
      createdAt: clock.now().toISOString(),
      expiresAt,
      invitedByUserId: t.creds.user.id,
    });

    const token = tokenOf(url);
    const info = await t.request('GET', `/api/auth/invitations/${token}`);
    expect(info.status).toBe(200);
    expect(info.body).toEqual({ email: 'viewer@acme.test', organizationName: t.creds.organization.name, role: 'VIEWER', expiresAt });

    const short = await t.request('POST', `/api/auth/invitations/${token}/accept`, { body: { password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error.meta.field).toBe('body.password');

    const accepted = await t.request('POST', `/api/auth/invitations/${token}/accept`, { body: { password: 'viewer-password', name: 'Vera Viewer' } });
    const s = sessionOf(accepted);
    expect(s.session).toMatchObject({ user: { email: 'viewer@acme.test', name: 'Vera Viewer' }, role: 'VIEWER', organization: { id: t.creds.organization.id } });

    // A VIEWER reads but cannot annotate.
    const read = await t.request('GET', `/api/annotations/trace/${TRACE_ID}`, asBrowser(s, { projectId: t.creds.project.id }));
    expect(read.status).toBe(200);
    const write = await t.request('POST', `/api/annotations/trace/${TRACE_ID}`, asBrowser(s, { projectId: t.creds.project.id, body: { comment: 'no', isThumbsUp: false } }));
    expect(write.status).toBe(403);

    // One time only; gone from the pending list; the password signs in.
    expect((await t.request('GET', `/api/auth/invitations/${token}`)).body.error.code).toBe('invitation_not_found');
    expect((await t.request('POST', `/api/auth/invitations/${token}/accept`, { body: { password: 'another-password' } })).status).toBe(404);
    expect((await t.request('GET', '/api/invitations', admin())).body.data.map((i: { id: string }) => i.id)).not.toContain(added.body.invitation.id);
    await signIn(t, 'viewer@acme.test', 'viewer-password');
    expect((await t.request('POST', '/api/auth/signin', { body: { email: 'viewer@acme.test', password: 'another-password' } })).status).toBe(401);
  });

  it('an admin signed in with the cookie adds a member; links use SPYGLASS_PUBLIC_URL when set', async () => {
    const s = await signIn(t, t.creds.user.email, t.creds.user.password);
    const withoutCsrf = await t.request('POST', '/api/members', asBrowser(s, { csrf: false, body: { email: 'csrf@acme.test', role: 'MEMBER' } }));
    expect(withoutCsrf.status).toBe(403);
    const added = await t.request('POST', '/api/members', asBrowser(s, { body: { email: 'cookie@acme.test', role: 'MEMBER' } }));
    expect(added.status).toBe(200);
    expect(added.body.invitation.url.startsWith(`${t.baseUrl}/invite/`)).toBe(true);

    const behindProxy = await startApp(kind, { clock, reopen: t, env: { SPYGLASS_PUBLIC_URL: 'https://spyglass.example.com/' } });
    try {
      const viaPublic = await addMember('public@acme.test', 'MEMBER', behindProxy);
      expect(viaPublic.body.invitation.url).toMatch(/^https:\/\/spyglass\.example\.com\/invite\/[A-Za-z0-9]{48}$/);
      const reset = await behindProxy.request('POST', `/api/members/${viaPublic.body.userId}/password-reset`, admin());
      expect(reset.body.url).toMatch(/^https:\/\/spyglass\.example\.com\/reset-password\/[A-Za-z0-9]{48}$/);
    } finally {
      await behindProxy.close();
    }
  });

  it('no link for a user who already has a password or belongs to another organization', async () => {
    const other = await createTenant(t, 'Elsewhere');
    const first = await t.request('POST', '/api/members', { token: other.adminToken, body: { email: 'twice@acme.test', role: 'MEMBER' } });
    expect(first.body.invitation).not.toBeNull();
    // Pending elsewhere: this organization's admin could otherwise set the password of a user of another organization.
    expect((await addMember('twice@acme.test')).body.invitation).toBeNull();
    // Has a password: signs in with it.
    const accepted = await addMember('haspassword@acme.test');
    await t.request('POST', `/api/auth/invitations/${tokenOf(accepted.body.invitation.url)}/accept`, { body: { password: 'has-a-password' } });
    const again = await t.request('POST', '/api/members', { token: other.adminToken, body: { email: 'haspassword@acme.test', role: 'VIEWER' } });
    expect(again.status).toBe(200);
    expect(again.body.invitation).toBeNull();
    // And the elsewhere link no longer works once the user belongs to two organizations.
    expect((await t.request('GET', `/api/auth/invitations/${tokenOf(first.body.invitation.url)}`)).status).toBe(404);
  });

  it('revoking a pending invitation kills the link and withdraws the membership; inviting again works', async () => {
    const added = await addMember('revoked@acme.test');
    const token = tokenOf(added.body.invitation.url);
    const revoked = await t.request('DELETE', `/api/invitations/${added.body.invitation.id}`, admin());
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: added.body.invitation.id, revoked: true });
    expect((await t.request('GET', `/api/auth/invitations/${token}`)).status).toBe(404);
    expect((await t.request('POST', `/api/auth/invitations/${token}/accept`, { body: { password: 'long-enough' } })).status).toBe(404);
    const members = await t.request('GET', '/api/members', admin());
    expect(members.body.data.map((m: { email: string }) => m.email)).not.toContain('revoked@acme.test');
    expect((await t.request('DELETE', `/api/invitations/${added.body.invitation.id}`, admin())).status).toBe(404);

    const again = await addMember('revoked@acme.test');
    expect(again.status).toBe(200);
    expect(again.body.invitation.id).not.toBe(added.body.invitation.id);
    // Another organization's admin cannot see or revoke it.
    const other = await createTenant(t, 'Nosy');
    expect((await t.request('DELETE', `/api/invitations/${again.body.invitation.id}`, { token: other.adminToken })).status).toBe(404);
    expect((await t.request('GET', '/api/invitations', { token: other.adminToken })).body.data).toEqual([]);
  });

  it('an invitation expires after 7 days, and dies with the membership', async () => {
    const late = await addMember('late@acme.test');
    const removed = await addMember('removed@acme.test');
    await t.request('DELETE', `/api/members/${removed.body.userId}`, admin());
    expect((await t.request('GET', `/api/auth/invitations/${tokenOf(removed.body.invitation.url)}`)).status).toBe(404);
    clock.advance(7 * DAY - 1000);
    expect((await t.request('GET', `/api/auth/invitations/${tokenOf(late.body.invitation.url)}`)).status).toBe(200);
    clock.advance(2000);
    expect((await t.request('GET', `/api/auth/invitations/${tokenOf(late.body.invitation.url)}`)).status).toBe(404);
    expect((await t.request('GET', '/api/invitations', admin())).body.data.map((i: { email: string }) => i.email)).not.toContain('late@acme.test');
  });

  it('an admin\'s password-reset link: one time, one hour, ends every other session, signs in', async () => {
    const added = await addMember('forgetful@acme.test');
    const before = sessionOf(
      await t.request('POST', `/api/auth/invitations/${tokenOf(added.body.invitation.url)}/accept`, { body: { password: 'old-password' } }),
    );
    const first = await t.request('POST', `/api/members/${added.body.userId}/password-reset`, admin());
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      url: expect.stringMatching(new RegExp(`^${t.baseUrl}/reset-password/[A-Za-z0-9]{48}$`)),
      expiresAt: new Date(clock.now().getTime() + 3_600_000).toISOString(),
    });
    await smtp.waitFor('forgetful@acme.test', first.body.url);
    const second = await t.request('POST', `/api/members/${added.body.userId}/password-reset`, admin());
    // A new link voids the older one.
    expect((await t.request('GET', `/api/auth/password-reset/${tokenOf(first.body.url)}`)).body.error.code).toBe('reset_not_found');
    const token = tokenOf(second.body.url);
    expect((await t.request('GET', `/api/auth/password-reset/${token}`)).body).toEqual({ email: 'forgetful@acme.test', expiresAt: second.body.expiresAt });
    const short = await t.request('POST', `/api/auth/password-reset/${token}`, { body: { password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error.meta.field).toBe('body.password');

    const after = sessionOf(await t.request('POST', `/api/auth/password-reset/${token}`, { body: { password: 'new-password' } }));
    expect(after.session).toMatchObject({ user: { email: 'forgetful@acme.test' }, role: 'MEMBER' });
    expect((await t.request('GET', '/api/auth/session', asBrowser(before))).status).toBe(401);
    expect((await t.request('GET', '/api/auth/session', asBrowser(after))).status).toBe(200);
    expect((await t.request('POST', `/api/auth/password-reset/${token}`, { body: { password: 'third-password' } })).status).toBe(404);
    expect((await t.request('POST', '/api/auth/signin', { body: { email: 'forgetful@acme.test', password: 'old-password' } })).status).toBe(401);
    await signIn(t, 'forgetful@acme.test', 'new-password');

    const expiring = await t.request('POST', `/api/members/${added.body.userId}/password-reset`, admin());
    clock.advance(3_600_000);
    expect((await t.request('GET', `/api/auth/password-reset/${tokenOf(expiring.body.url)}`)).status).toBe(404);
    expect((await t.request('POST', `/api/auth/password-reset/${tokenOf(expiring.body.url)}`, { body: { password: 'too-late-password' } })).status).toBe(404);
  });

  it('reset links only for members of this organization alone', async () => {
    const other = await createTenant(t, 'Other Reset Org');
    expect((await t.request('POST', `/api/members/${other.userId}/password-reset`, admin())).body.error.code).toBe('member_not_found');
    const shared = await addMember('shared@acme.test');
    await t.request('POST', `/api/auth/invitations/${tokenOf(shared.body.invitation.url)}/accept`, { body: { password: 'shared-password' } });
    await t.request('POST', '/api/members', { token: other.adminToken, body: { email: 'shared@acme.test', role: 'VIEWER' } });
    const refused = await t.request('POST', `/api/members/${shared.body.userId}/password-reset`, admin());
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('member_of_other_organizations');
    expect((await t.request('GET', '/api/auth/password-reset/not-a-token')).status).toBe(404);
  });

  it('a mail server that fails costs the mail, not the link', async () => {
    const noMail = await startApp(kind, { clock, reopen: t, env: { SMTP_URL: 'smtp://127.0.0.1:1' } });
    try {
      const added = await addMember('nomail@acme.test', 'MEMBER', noMail);
      expect(added.status).toBe(200);
      expect(added.body.invitation.url).toContain('/invite/');
    } finally {
      await noMail.close();
    }
  });
});
