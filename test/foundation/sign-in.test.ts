import { randomBytes, scryptSync } from 'node:crypto';
import { loadConfig } from '../../src/config.ts';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { createTenant, appDatabaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';
import { asBrowser, inviteAndAccept, sessionCookieOf, signIn, type BrowserSession } from '../support/sessions.ts';

const DAY = 86_400_000;
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

describe.each(appDatabaseKinds)('signing in (%s)', (kind) => {
  let t: TestApp;
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
  let admin: () => Promise<BrowserSession>;

  beforeAll(async () => {
    t = await startApp(kind, { clock });
    admin = () => signIn(t, t.creds.user.email, t.creds.user.password);
  });
  afterAll(() => t.close());

  const annotate = (s: BrowserSession, opts: { csrf?: boolean | string } = {}) =>
    t.request('POST', `/api/annotations/trace/${TRACE_ID}`, asBrowser(s, { projectId: t.creds.project.id, body: { comment: 'ok', isThumbsUp: true }, ...opts }));

  it('the first-start admin signs in: the session, and an HttpOnly SameSite=Lax cookie', async () => {
    const res = await t.request('POST', '/api/auth/signin', { body: { email: t.creds.user.email, password: t.creds.user.password } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      user: { id: t.creds.user.id, email: t.creds.user.email },
      organization: { id: t.creds.organization.id, name: t.creds.organization.name },
      role: 'ADMIN',
      organizations: [{ id: t.creds.organization.id, name: t.creds.organization.name, role: 'ADMIN' }],
      projects: [{ id: t.creds.project.id, name: t.creds.project.name }],
      expiresAt: new Date(clock.now().getTime() + 7 * DAY).toISOString(),
    });
    expect(res.body.permissions).toEqual(expect.arrayContaining(['traces:view', 'annotations:create', 'organization:manage']));
    expect(res.body.csrfToken).toMatch(/^[\w-]{20,}$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('spyglass_session='))!;
    expect(setCookie).toMatch(/^spyglass_session=[A-Za-z0-9]{48};/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).not.toContain('Secure'); // plain http here
    expect(setCookie).toContain(`Expires=${new Date(clock.now().getTime() + 30 * DAY).toUTCString()}`);

    // The e-mail is matched without regard to case.
    expect((await t.request('POST', '/api/auth/signin', { body: { email: t.creds.user.email.toUpperCase(), password: t.creds.user.password } })).status).toBe(200);
  });

  it('documents every route of the sign-in contract in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/api/openapi.json')).body;
    expect(doc.components.securitySchemes.session_cookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'spyglass_session' });
    const routes = [
      ['post', '/api/auth/signin', 'public'],
      ['get', '/api/auth/session', 'cookie'],
      ['patch', '/api/auth/session', 'cookie'],
      ['post', '/api/auth/signout', 'cookie'],
      ['get', '/api/auth/sessions', 'cookie'],
      ['delete', '/api/auth/sessions/{id}', 'cookie'],
      ['post', '/api/auth/password', 'cookie'],
      ['get', '/api/auth/invitations/{token}', 'public'],
      ['post', '/api/auth/invitations/{token}/accept', 'public'],
      ['get', '/api/auth/password-reset/{token}', 'public'],
      ['post', '/api/auth/password-reset/{token}', 'public'],
      ['post', '/api/members', 'admin'],
      ['get', '/api/invitations', 'admin'],
      ['delete', '/api/invitations/{id}', 'admin'],
      ['post', '/api/members/{userId}/password-reset', 'admin'],
    ];
    for (const [method, path, who] of routes) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      if (who === 'public') expect(op.security, path).toEqual([]);
      if (who === 'cookie') expect(op.security, path).toEqual([{ session_cookie: [] }]);
    }
    const session = doc.components.schemas.Session;
    expect(Object.keys(session.properties).sort()).toEqual(
      ['csrfToken', 'expiresAt', 'organization', 'organizations', 'permissions', 'projects', 'role', 'user'],
    );
    expect(doc.paths['/api/auth/signin'].post.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/Session');
    expect(doc.paths['/api/members'].post.responses['200'].content['application/json'].schema.properties).toHaveProperty('invitation');
  });

  it('GET /api/auth/session describes the signed-in session; without a cookie 401', async () => {
    const s = await admin();
    const res = await t.request('GET', '/api/auth/session', asBrowser(s, { csrf: false }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(s.session);
    expect((await t.request('GET', '/api/auth/session')).status).toBe(401);
  });

  it('a wrong password and an unknown e-mail get the same answer in similar time', async () => {
    const attempt = async (email: string) => {
      const started = performance.now();
      const res = await t.request('POST', '/api/auth/signin', { body: { email, password: 'not-the-password' } });
      return { res, ms: performance.now() - started };
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await attempt(t.creds.user.email);
      const b = await attempt(`nobody-${i}@nowhere.test`);
      expect(a.res.status).toBe(401);
      expect(b.res.status).toBe(401);
      expect(b.res.text).toBe(a.res.text);
      expect(a.res.body).toEqual({
        error: { type: 'authentication_error', code: 'invalid_credentials', message: 'wrong e-mail or password' },
      });
      expect(sessionCookieOf(a.res)).toBeNull();
      known.push(a.ms);
      unknown.push(b.ms);
    }
    // Both pay for one password hash (an unknown e-mail verifies a dummy hash). Without it an
    // unknown e-mail answers ~100x sooner; the wide bounds allow for a busy machine.
    const median = (xs: number[]) => xs.sort((x, y) => x - y)[1];
    const ratio = median(unknown) / median(known);
    expect(ratio, `known ${known.map(Math.round).join(',')} ms, unknown ${unknown.map(Math.round).join(',')} ms`).toBeGreaterThan(0.25);
    expect(ratio, `known ${known.map(Math.round).join(',')} ms, unknown ${unknown.map(Math.round).join(',')} ms`).toBeLessThan(4);
    // A good sign-in clears the account's count.
    await admin();
  });

  it('a user without a password (invited, not yet accepted) cannot sign in, with the same answer', async () => {
    await t.request('POST', '/api/members', { token: t.creds.adminApiKey, body: { email: 'pending@acme.test', role: 'MEMBER' } });
    const res = await t.request('POST', '/api/auth/signin', { body: { email: 'pending@acme.test', password: 'whatever-it-is' } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_credentials');
  });

  it('passwords hashed with an older, weaker scrypt setting keep working and are rehashed at sign-in', async () => {
    // The suite hashes at the cheapest cost the configuration allows (harness.ts); an installation
    // hashes at 2^17 unless told otherwise.
    expect(loadConfig({}).passwordHashCost).toBe(17);
    expect(() => loadConfig({ SPYGLASS_PASSWORD_HASH_COST: '9' })).toThrow(/SPYGLASS_PASSWORD_HASH_COST: must be at least 10/);
    const n = 2 ** t.config.passwordHashCost;
    const m = await inviteAndAccept(t, t.creds.adminApiKey, { email: 'old-hash@acme.test', role: 'MEMBER', password: 'old-hash-password' });
    const hashOf = async () => (await rows<{ h: string }>(t.db.orm, sql`SELECT password_hash AS h FROM users WHERE id = ${m.userId}`))[0].h;
    expect(await hashOf()).toMatch(new RegExp(`^scrypt\\$${n}\\$8\\$1\\$`));
    const salt = randomBytes(16);
    const old = ['scrypt', n / 2, 8, 1, salt.toString('base64url'), scryptSync('old-hash-password', salt, 32, { N: n / 2, r: 8, p: 1 }).toString('base64url')].join('$');
    await t.db.orm.execute(sql`UPDATE users SET password_hash = ${old} WHERE id = ${m.userId}`);
    expect((await t.request('POST', '/api/auth/signin', { body: { email: 'old-hash@acme.test', password: 'wrong-password' } })).status).toBe(401);
    expect(await hashOf()).toBe(old);
    await signIn(t, 'old-hash@acme.test', 'old-hash-password');
    expect(await hashOf()).toMatch(new RegExp(`^scrypt\\$${n}\\$8\\$1\\$`));
    await signIn(t, 'old-hash@acme.test', 'old-hash-password');
  });

  it('refuses bad bodies naming the field', async () => {
    const res = await t.request('POST', '/api/auth/signin', { body: { email: t.creds.user.email } });
    expect(res.status).toBe(400);
    expect(res.body.error.meta.field).toBe('body.password');
    // A cross-site form cannot post JSON: a text/plain body is not a sign-in.
    const form = await t.request('POST', '/api/auth/signin', {
      rawBody: JSON.stringify({ email: t.creds.user.email, password: t.creds.user.password }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(form.status).toBe(400);
    expect(sessionCookieOf(form)).toBeNull();
  });

  it('the cookie works on project routes with X-Project-Id; mutations need the CSRF token', async () => {
    const s = await admin();
    expect((await annotate(s, { csrf: false })).status).toBe(403);
    const bad = await annotate(s, { csrf: 'A'.repeat(43) });
    expect(bad.status).toBe(403);
    expect(bad.body.error).toBe('csrf_token_invalid');
    const ok = await annotate(s);
    expect(ok.status).toBe(200);
    // Annotations made by a signed-in user carry the user.
    expect(ok.body.data).toMatchObject({ userId: t.creds.user.id, email: t.creds.user.email });
    const list = await t.request('GET', `/api/annotations/trace/${TRACE_ID}`, asBrowser(s, { csrf: false, projectId: t.creds.project.id }));
    expect(list.status).toBe(200);
    // Without the project: 400 naming X-Project-Id.
    const missing = await t.request('GET', `/api/annotations/trace/${TRACE_ID}`, asBrowser(s, { csrf: false }));
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('X-Project-Id');
    // Organization routes too, and API keys keep working beside sessions.
    expect((await t.request('GET', '/api/projects', asBrowser(s))).status).toBe(200);
    expect((await t.request('GET', '/api/projects', { token: t.creds.adminApiKey })).status).toBe(200);
  });

  it('lists the user\'s sessions; a revoked session gets 401 at once; others\' ids 404', async () => {
    const laptop = await admin();
    const phone = await signIn(t, t.creds.user.email, t.creds.user.password, { 'user-agent': 'Phone/1.0' });
    const list = await t.request('GET', '/api/auth/sessions', asBrowser(laptop));
    expect(list.status).toBe(200);
    const mine = list.body.data.find((x: { current: boolean }) => x.current);
    const theirs = list.body.data.find((x: { userAgent: string }) => x.userAgent === 'Phone/1.0');
    expect(mine).toMatchObject({ ipAddress: '127.0.0.1', current: true });
    expect(theirs).toMatchObject({ current: false, createdAt: clock.now().toISOString() });
    expect(Object.keys(theirs).sort()).toEqual(['createdAt', 'current', 'expiresAt', 'id', 'ipAddress', 'lastSeenAt', 'userAgent']);

    expect((await t.request('DELETE', `/api/auth/sessions/${theirs.id}`, asBrowser(laptop, { csrf: false }))).status).toBe(403);
    const revoked = await t.request('DELETE', `/api/auth/sessions/${theirs.id}`, asBrowser(laptop));
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: theirs.id, revoked: true });
    expect((await t.request('GET', '/api/auth/session', asBrowser(phone))).status).toBe(401);
    expect((await t.request('DELETE', `/api/auth/sessions/${theirs.id}`, asBrowser(laptop))).status).toBe(404);
    const after = await t.request('GET', '/api/auth/sessions', asBrowser(laptop));
    expect(after.body.data.map((x: { id: string }) => x.id)).not.toContain(theirs.id);

    // Another user's session id: 404, and that session keeps working.
    const member = await inviteAndAccept(t, t.creds.adminApiKey, { email: 'sessions-member@acme.test', role: 'MEMBER' });
    const memberSessions = await t.request('GET', '/api/auth/sessions', asBrowser(member));
    const memberSessionId = memberSessions.body.data[0].id;
    expect((await t.request('DELETE', `/api/auth/sessions/${memberSessionId}`, asBrowser(laptop))).status).toBe(404);
    expect((await t.request('GET', '/api/auth/session', asBrowser(member))).status).toBe(200);
  });

  it('sign-out revokes the session and clears the cookie', async () => {
    const s = await admin();
    expect((await t.request('POST', '/api/auth/signout', asBrowser(s, { csrf: false }))).status).toBe(403);
    const res = await t.request('POST', '/api/auth/signout', asBrowser(s));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ signedOut: true });
    const cleared = res.headers.getSetCookie().find((c) => c.startsWith('spyglass_session='))!;
    expect(cleared).toMatch(/^spyglass_session=;/);
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970|Max-Age=0/);
    expect((await t.request('GET', '/api/auth/session', asBrowser(s))).status).toBe(401);
    expect((await annotate(s)).status).toBe(401);
  });

  it('expires after 7 idle days; lastSeenAt is written at most once a minute', async () => {
    const s = await admin();
    const lastSeen = async () =>
      (await t.request('GET', '/api/auth/sessions', asBrowser(s))).body.data.find((x: { current: boolean }) => x.current).lastSeenAt;
    const signedInAt = clock.now().toISOString();
    clock.advance(30_000);
    expect(await lastSeen()).toBe(signedInAt); // within the minute: not written
    clock.advance(31_000);
    const movedAt = clock.now().toISOString();
    expect(await lastSeen()).toBe(movedAt);
    clock.advance(7 * DAY - 1000);
    expect((await t.request('GET', '/api/auth/session', asBrowser(s))).status).toBe(200);
    clock.advance(7 * DAY - 1000);
    const alive = await t.request('GET', '/api/auth/session', asBrowser(s));
    expect(alive.status).toBe(200);
    expect(alive.body.expiresAt).toBe(new Date(clock.now().getTime() + 7 * DAY).toISOString());
    clock.advance(7 * DAY + 1000);
    expect((await t.request('GET', '/api/auth/session', asBrowser(s))).status).toBe(401);
    // The periodic sweep deletes what can no longer be used.
    const count = async () => (await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM user_sessions WHERE token_hash = ${t.tokenHasher.hash(s.cookie.split('=')[1])}`))[0].n;
    expect(await count()).toBe(1);
    await t.app.services.accounts.sweep();
    expect(await count()).toBe(0);
  });

  it('ends 30 days after signing in however active it is', async () => {
    const s = await admin();
    const end = clock.now().getTime() + 30 * DAY;
    for (let day = 6; day < 30; day += 6) {
      clock.advance(6 * DAY);
      const res = await t.request('GET', '/api/auth/session', asBrowser(s));
      expect(res.status, `day ${day}`).toBe(200);
      expect(new Date(res.body.expiresAt).getTime()).toBeLessThanOrEqual(end);
    }
    clock.set(end);
    expect((await t.request('GET', '/api/auth/session', asBrowser(s))).status).toBe(401);
  });

  it('switches the active organization among the user\'s own; the role and projects follow', async () => {
    const other = await createTenant(t, 'Second Org');
    const first = await inviteAndAccept(t, t.creds.adminApiKey, { email: 'multi@acme.test', role: 'ADMIN', password: 'multi-password' });
    // A user who has a password, added to another organization (later): no invitation link.
    clock.advance(1000);
    const added = await t.request('POST', '/api/members', { token: other.adminToken, body: { email: 'multi@acme.test', role: 'VIEWER' } });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ userId: first.userId, role: 'VIEWER', invitation: null });

    const s = await signIn(t, 'multi@acme.test', 'multi-password');
    expect(s.session.organizations.map((o: { id: string }) => o.id)).toEqual([t.creds.organization.id, other.organizationId]);
    expect((await t.request('PATCH', '/api/auth/session', asBrowser(s, { csrf: false, body: { organizationId: other.organizationId } }))).status).toBe(403);
    const switched = await t.request('PATCH', '/api/auth/session', asBrowser(s, { body: { organizationId: other.organizationId } }));
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({
      organization: { id: other.organizationId, name: 'Second Org' },
      role: 'VIEWER',
      projects: [{ id: other.projectId }],
    });
    expect(switched.body.permissions).not.toContain('annotations:create');
    // The session now acts in the other organization, as a VIEWER.
    expect((await t.request('GET', `/api/annotations/trace/${TRACE_ID}`, asBrowser(s, { projectId: other.projectId }))).status).toBe(200);
    expect((await t.request('GET', `/api/annotations/trace/${TRACE_ID}`, asBrowser(s, { projectId: t.creds.project.id }))).status).toBe(403);
    const denied = await t.request('POST', `/api/annotations/trace/${TRACE_ID}`, asBrowser(s, { projectId: other.projectId, body: { comment: 'x', isThumbsUp: true } }));
    expect(denied.status).toBe(403);

    const foreign = await createTenant(t, 'Not Mine');
    const notMember = await t.request('PATCH', '/api/auth/session', asBrowser(s, { body: { organizationId: foreign.organizationId } }));
    expect(notMember.status).toBe(404);
    expect(notMember.body.error.code).toBe('organization_not_found');
    const bad = await t.request('PATCH', '/api/auth/session', asBrowser(s, { body: {} }));
    expect(bad.status).toBe(400);
    expect(bad.body.error.meta.field).toBe('body.organizationId');
  });

  it('a role change applies at once; removing the member ends the member\'s sessions', async () => {
    const m = await inviteAndAccept(t, t.creds.adminApiKey, { email: 'demoted@acme.test', role: 'MEMBER' });
    expect((await annotate(m)).status).toBe(200);
    await t.request('PATCH', `/api/members/${m.userId}`, { token: t.creds.adminApiKey, body: { role: 'VIEWER' } });
    expect((await annotate(m)).status).toBe(403);
    expect((await t.request('GET', '/api/auth/session', asBrowser(m))).body.role).toBe('VIEWER');
    expect((await t.request('DELETE', `/api/members/${m.userId}`, { token: t.creds.adminApiKey })).status).toBe(200);
    expect((await t.request('GET', '/api/auth/session', asBrowser(m))).status).toBe(401);
    expect((await t.request('GET', `/api/annotations/trace/${TRACE_ID}`, asBrowser(m, { projectId: t.creds.project.id }))).status).toBe(401);
  });

  it('changing the password revokes the user\'s other sessions, not this one', async () => {
    const m = await inviteAndAccept(t, t.creds.adminApiKey, { email: 'changer@acme.test', role: 'MEMBER', password: 'first-password' });
    const other = await signIn(t, 'changer@acme.test', 'first-password');
    const change = (body: object, s = m) => t.request('POST', '/api/auth/password', asBrowser(s, { body }));

    const wrong = await change({ currentPassword: 'not-it', newPassword: 'second-password' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'current_password_invalid', meta: { field: 'currentPassword' } });
    const short = await change({ currentPassword: 'first-password', newPassword: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.error.meta.field).toBe('body.newPassword');

    const ok = await change({ currentPassword: 'first-password', newPassword: 'second-password' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ changed: true });
    expect((await t.request('GET', '/api/auth/session', asBrowser(other))).status).toBe(401);
    expect((await t.request('GET', '/api/auth/session', asBrowser(m))).status).toBe(200);
    expect((await t.request('POST', '/api/auth/signin', { body: { email: 'changer@acme.test', password: 'first-password' } })).status).toBe(401);
    await signIn(t, 'changer@acme.test', 'second-password');
  });

  it('keeps only keyed hashes of session, invitation and reset tokens, and of e-mails in attempt counters', async () => {
    const s = await admin();
    const sessionToken = s.cookie.split('=')[1];
    const added = await t.request('POST', '/api/members', { token: t.creds.adminApiKey, body: { email: 'hashed@acme.test', role: 'VIEWER' } });
    const invitationToken = added.body.invitation.url.split('/').pop();
    const reset = await t.request('POST', `/api/members/${added.body.userId}/password-reset`, { token: t.creds.adminApiKey });
    const resetToken = reset.body.url.split('/').pop();
    await t.request('POST', '/api/auth/signin', { body: { email: 'hashed@acme.test', password: 'wrong-password' } });

    const dump = async (table: string) =>
      (await rows<{ r: string }>(t.db.orm, sql`SELECT row_to_json(x)::text AS r FROM ${sql.identifier(table)} x`)).map((x) => x.r).join('\n');
    const everything = [await dump('user_sessions'), await dump('invitations'), await dump('password_resets'), await dump('auth_throttle')].join('\n');
    expect(everything).toContain(t.tokenHasher.hash(sessionToken));
    for (const secret of [sessionToken, invitationToken, resetToken, s.csrfToken, 'hashed@acme.test']) {
      expect(secret.length).toBeGreaterThan(10);
      expect(everything).not.toContain(secret);
    }
    expect(await dump('users')).not.toContain(t.creds.user.password);
  });
});

describe.each(appDatabaseKinds)('sign-in rate limits (%s)', (kind) => {
  let t: TestApp;
  let second: TestApp;
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
  const env = { SPYGLASS_SIGNIN_MAX_PER_ACCOUNT: '3', SPYGLASS_SIGNIN_MAX_PER_ADDRESS: '6', SPYGLASS_TRUST_PROXY: '1' };

  beforeAll(async () => {
    t = await startApp(kind, { clock, env });
    // A second process on the same database: attempts are counted in the database, together.
    second = await startApp(kind, { clock, env, reopen: t });
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  let address = 0;
  const freshAddress = () => `10.0.${Math.floor(++address / 250)}.${address % 250}`;
  const attempt = (app: TestApp, email: string, password: string, from = freshAddress()) =>
    app.request('POST', '/api/auth/signin', { body: { email, password }, headers: { 'x-forwarded-for': from } });

  it('per account: after 3 attempts in 15 minutes, 429 with Retry-After, from any address and either process', async () => {
    const { email, password } = t.creds.user;
    for (let i = 0; i < 3; i++) expect((await attempt(i % 2 ? second : t, email, 'wrong-password')).status).toBe(401);
    const limited = await attempt(second, email, password);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ type: 'rate_limited', code: 'too_many_attempts' });
    expect(limited.headers.get('retry-after')).toBe('900');
    expect(sessionCookieOf(limited)).toBeNull();
    // An unknown e-mail is limited the same way: the limit tells nothing about who exists.
    for (let i = 0; i < 3; i++) expect((await attempt(t, 'ghost@nowhere.test', 'wrong-password')).status).toBe(401);
    expect((await attempt(t, 'ghost@nowhere.test', 'wrong-password')).status).toBe(429);

    clock.advance(10 * 60_000);
    expect((await attempt(t, email, password)).headers.get('retry-after')).toBe('300');
    clock.advance(5 * 60_000);
    expect((await attempt(t, email, password)).status).toBe(200);
  });

  it('a good sign-in clears the account\'s count', async () => {
    const { email, password } = t.creds.user;
    for (let round = 0; round < 3; round++) {
      expect((await attempt(t, email, 'wrong-password')).status).toBe(401);
      expect((await attempt(t, email, 'wrong-password')).status).toBe(401);
      expect((await attempt(second, email, password)).status).toBe(200);
    }
  });

  it('per address: after 6 attempts from one address, 429 there for every account; other addresses go on', async () => {
    const from = '192.0.2.7';
    for (let i = 0; i < 6; i++) expect((await attempt(i % 2 ? second : t, `someone-${i}@acme.test`, 'wrong-password', from)).status).toBe(401);
    const limited = await attempt(t, t.creds.user.email, t.creds.user.password, from);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await attempt(t, t.creds.user.email, t.creds.user.password, '192.0.2.8')).status).toBe(200);
    clock.advance(15 * 60_000);
    expect((await attempt(t, t.creds.user.email, t.creds.user.password, from)).status).toBe(200);
  });

  it('behind a trusted proxy, X-Forwarded-Proto https makes the cookie Secure', async () => {
    const res = await t.request('POST', '/api/auth/signin', {
      body: { email: t.creds.user.email, password: t.creds.user.password },
      headers: { 'x-forwarded-for': freshAddress(), 'x-forwarded-proto': 'https' },
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('spyglass_session='))!;
    expect(cookie).toContain('Secure');
    expect(cookie).toContain('HttpOnly');
  });
});
