import { sql } from 'drizzle-orm';
import { rows } from '../../src/db/index.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDatabaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';

describe.each(appDatabaseKinds)('API keys (%s)', (kind) => {
  let t: TestApp;
  let admin: string;
  let orgId: string;
  let projectId: string;
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
  beforeAll(async () => {
    t = await startApp(kind, { clock });
    admin = t.creds.adminApiKey;
    orgId = t.creds.organization.id;
    projectId = t.creds.project.id;
  });
  afterAll(() => t.close());

  const create = (token: string, body: unknown) => t.request('POST', '/api/api-keys', { token, body });

  it('mints a personal key with bindings; the token is shown once and works as its owner', async () => {
    const res = await create(admin, {
      name: 'CI reader',
      description: 'reads projects',
      bindings: [{ role: 'VIEWER', scopeType: 'PROJECT', scopeId: projectId }],
    });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^sg-[A-Za-z0-9]{16}_[A-Za-z0-9]{48}$/);
    expect(res.body.apiKey).toMatchObject({
      name: 'CI reader',
      keyType: 'personal',
      ownerUserId: t.creds.user.id,
      permissionMode: 'all',
      bindings: [{ role: 'VIEWER', scopeType: 'PROJECT', scopeId: projectId }],
    });
    expect(typeof res.body.apiKey.id).toBe('string');
    expect(new Date(res.body.apiKey.createdAt).toISOString()).toBe(res.body.apiKey.createdAt);
    // The id is the token's public part.
    expect(res.body.token.slice(3, 19)).toBe(res.body.apiKey.id);

    const projects = await t.request('GET', '/api/projects', { token: res.body.token });
    expect(projects.status).toBe(200);
    expect(projects.body.data.map((p: { id: string }) => p.id)).toEqual([projectId]);
    // VIEWER cannot create projects.
    expect((await t.request('POST', '/api/projects', { token: res.body.token, body: { name: 'no' } })).status).toBe(403);

    const listed = await t.request('GET', '/api/api-keys', { token: admin });
    const text = JSON.stringify(listed.body);
    expect(text).toContain(res.body.apiKey.id);
    expect(text).not.toContain(res.body.token.split('_')[1]);
  });

  it("a deleted project leaves no binding behind; the key's other bindings stay", async () => {
    const other = await t.request('POST', '/api/projects', { token: admin, body: { name: 'short-lived' } });
    expect(other.status).toBe(200);
    const res = await create(admin, {
      name: 'two projects',
      bindings: [
        { role: 'VIEWER', scopeType: 'PROJECT', scopeId: projectId },
        { role: 'VIEWER', scopeType: 'PROJECT', scopeId: other.body.project.id },
      ],
    });
    expect(res.status).toBe(200);
    expect((await t.request('DELETE', `/api/projects/${other.body.project.id}`, { token: admin })).status).toBe(200);
    const key = await t.request('GET', `/api/api-keys/${res.body.apiKey.id}`, { token: admin });
    expect(key.body.bindings).toEqual([{ role: 'VIEWER', scopeType: 'PROJECT', scopeId: projectId }]);
    const projects = await t.request('GET', '/api/projects', { token: res.body.token });
    expect(projects.body.data.map((p: { id: string }) => p.id)).toEqual([projectId]);
  });

  it('records when a key was last used, to the minute', async () => {
    const res = await create(admin, { name: 'last use', keyType: 'service' });
    const id = res.body.apiKey.id as string;
    expect(res.body.apiKey.lastUsedAt).toBeNull();
    const lastUsed = async () => (await t.request('GET', `/api/api-keys/${id}`, { token: admin })).body.lastUsedAt as string | null;
    expect(await lastUsed()).toBeNull();

    const first = clock.now().toISOString();
    expect((await t.request('GET', '/api/projects', { token: res.body.token })).status).toBe(200);
    // Written beside the request, not before its answer.
    await expect.poll(lastUsed).toBe(first);
    // Within the minute, a use changes nothing; after it, the time moves.
    clock.advance(30_000);
    await t.request('GET', '/api/projects', { token: res.body.token });
    clock.advance(31_000);
    const later = clock.now().toISOString();
    await t.request('GET', '/api/projects', { token: res.body.token });
    await expect.poll(lastUsed).toBe(later);
    // A refused token (wrong secret) is not a use.
    clock.advance(120_000);
    const forged = `${res.body.token.slice(0, 20)}${'x'.repeat(48)}`;
    expect((await t.request('GET', '/api/projects', { token: forged })).status).toBe(401);
    await new Promise((r) => setTimeout(r, 100));
    expect(await lastUsed()).toBe(later);
  });

  it('stores only a keyed hash of the secret', async () => {
    const res = await create(admin, { name: 'hash check', keyType: 'service' });
    const secret = res.body.token.split('_')[1];
    const dump = JSON.stringify(await rows(t.db.orm, sql`SELECT * FROM api_keys`));
    expect(dump).toContain(res.body.apiKey.id);
    expect(dump).not.toContain(secret);
  });

  it('requires bindings for personal keys and names the field', async () => {
    const res = await create(admin, { name: 'no bindings' });
    expect(res.status).toBe(400);
    expect(res.body.error.meta.field).toBe('bindings');
  });

  it('validates every field with a 400 naming it', async () => {
    const cases: [unknown, string][] = [
      [{ name: '' }, 'body.name'],
      [{ name: 'x'.repeat(101) }, 'body.name'],
      [{ name: 5 }, 'body.name'],
      [{ name: 'a', description: 'x'.repeat(501), keyType: 'service' }, 'body.description'],
      [{ name: 'a', keyType: 'robot' }, 'body.keyType'],
      [{ name: 'a', keyType: 'service', permissionMode: 'some' }, 'body.permissionMode'],
      [{ name: 'a', keyType: 'service', projectIds: [] }, 'body.projectIds'],
      [{ name: 'a', keyType: 'service', projectIds: Array.from({ length: 51 }, (_, i) => `p${i}`) }, 'body.projectIds'],
      [{ name: 'a', bindings: Array.from({ length: 21 }, () => ({ role: 'VIEWER', scopeType: 'PROJECT', scopeId: projectId })) }, 'body.bindings'],
      [{ name: 'a', bindings: [{ role: 'KING', scopeType: 'PROJECT', scopeId: projectId }] }, 'body.bindings.0.role'],
      [{ name: 'a', keyType: 'service', expiresAt: 'tomorrow' }, 'body.expiresAt'],
      [{ name: 'a', keyType: 'service', expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
      [{ name: 'a', keyType: 'service', permissionMode: 'restricted' }, 'permissions'],
      [{ name: 'a', keyType: 'service', permissionMode: 'restricted', permissions: ['traces:fly'] }, 'body.permissions.0'],
      [{ name: 'a', keyType: 'service', permissions: ['traces:view'] }, 'permissions'],
      [{ name: 'a', keyType: 'service', projectIds: ['proj_nope'] }, 'projectIds.0'],
      [{ name: 'a', keyType: 'service', assignedToUserId: 'user_x' }, 'assignedToUserId'],
      [{ name: 'a', projectIds: [projectId], bindings: [{ role: 'VIEWER', scopeType: 'PROJECT', scopeId: projectId }] }, 'projectIds'],
      [{ name: 'a', bindings: [{ role: 'VIEWER', scopeType: 'PROJECT', scopeId: 'proj_elsewhere' }] }, 'bindings.0.scopeId'],
      [{ name: 'a', bindings: [{ role: 'CUSTOM', scopeType: 'PROJECT', scopeId: projectId }] }, 'bindings.0.role'],
      [{ name: 'a', extra: true, keyType: 'service' }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await create(admin, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const named = [res.body.error.meta?.field, ...(res.body.error.meta?.issues ?? []).map((i: { field: string }) => i.field)];
      expect(named.some((f) => f?.startsWith(field)), `${field} in ${JSON.stringify(res.body)}`).toBe(true);
    }
  });

  it('answers 400 for malformed JSON and a wrong content type, never 500', async () => {
    const bad = await t.request('POST', '/api/api-keys', { token: admin, rawBody: '{"name": "x",', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_json');
    const empty = await t.request('POST', '/api/api-keys', { token: admin, rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(400);
    const xml = await t.request('POST', '/api/api-keys', { token: admin, rawBody: '<x/>', headers: { 'content-type': 'application/xml' } });
    expect(xml.status).toBe(415);
    const array = await t.request('POST', '/api/api-keys', { token: admin, body: [1, 2] });
    expect(array.status).toBe(400);
  });

  it('service keys: organization-wide without projectIds, bound to projects with them', async () => {
    const wide = await create(admin, { name: 'deployer', keyType: 'service' });
    expect(wide.status).toBe(200);
    expect(wide.body.apiKey.bindings).toEqual([{ role: 'ADMIN', scopeType: 'ORGANIZATION', scopeId: orgId }]);
    expect(wide.body.apiKey.ownerUserId).toBeNull();
    const other = await t.request('POST', '/api/projects', { token: admin, body: { name: 'Second' } });
    const scoped = await create(admin, { name: 'scoped', keyType: 'service', projectIds: [projectId] });
    expect(scoped.body.apiKey.bindings).toEqual([{ role: 'ADMIN', scopeType: 'PROJECT', scopeId: projectId }]);
    const seen = await t.request('GET', '/api/projects', { token: scoped.body.token });
    expect(seen.body.data.map((p: { id: string }) => p.id)).toEqual([projectId]);
    expect((await t.request('GET', `/api/projects/${other.body.project.id}`, { token: scoped.body.token })).status).toBe(403);
    // A project-scoped service key is not an organization admin.
    expect((await create(scoped.body.token, { name: 'x', keyType: 'service' })).status).toBe(403);
  });

  it('service keys with projectIds and bindings: the bindings, limited to the listed projects', async () => {
    const second = (await t.request('POST', '/api/projects', { token: admin, body: { name: 'Limited two' } })).body.project.id;
    const outside = (await t.request('POST', '/api/projects', { token: admin, body: { name: 'Limited outside' } })).body.project.id;
    const key = await create(admin, {
      name: 'limited',
      keyType: 'service',
      projectIds: [projectId, second],
      bindings: [
        { role: 'VIEWER', scopeType: 'ORGANIZATION', scopeId: orgId },
        { role: 'ADMIN', scopeType: 'PROJECT', scopeId: second },
      ],
    });
    expect(key.status).toBe(200);
    expect(key.body.apiKey.bindings).toEqual([
      { role: 'VIEWER', scopeType: 'PROJECT', scopeId: projectId },
      { role: 'ADMIN', scopeType: 'PROJECT', scopeId: second },
    ]);
    const token = key.body.token;
    const seen = await t.request('GET', '/api/projects', { token });
    expect(seen.body.data.map((p: { id: string }) => p.id).sort()).toEqual([projectId, second].sort());
    expect((await t.request('GET', `/api/projects/${outside}`, { token })).status).toBe(403);
    expect((await t.request('PATCH', `/api/projects/${projectId}`, { token, body: { name: 'viewer may not' } })).status).toBe(403);
    expect((await t.request('PATCH', `/api/projects/${second}`, { token, body: { name: 'Limited two, renamed' } })).status).toBe(200);
    // The organization binding does not reach the organization itself.
    expect((await t.request('POST', '/api/projects', { token, body: { name: 'not at organization level' } })).status).toBe(403);

    const stray = await create(admin, {
      name: 'stray',
      keyType: 'service',
      projectIds: [projectId],
      bindings: [
        { role: 'VIEWER', scopeType: 'PROJECT', scopeId: projectId },
        { role: 'ADMIN', scopeType: 'PROJECT', scopeId: outside },
      ],
    });
    expect(stray.status).toBe(400);
    expect(stray.body.error).toMatchObject({ code: 'binding_outside_projects', meta: { field: 'bindings.1.scopeId' } });
    expect(stray.body.error.message).toContain(outside);

    const readonly = await create(admin, {
      name: 'limited readonly',
      keyType: 'service',
      permissionMode: 'readonly',
      projectIds: [projectId],
      bindings: [{ role: 'ADMIN', scopeType: 'ORGANIZATION', scopeId: orgId }],
    });
    expect(readonly.body.apiKey.bindings).toEqual([{ role: 'ADMIN', scopeType: 'PROJECT', scopeId: projectId }]);
    expect((await t.request('GET', `/api/projects/${projectId}`, { token: readonly.body.token })).status).toBe(200);
    expect((await t.request('PATCH', `/api/projects/${projectId}`, { token: readonly.body.token, body: { name: 'no' } })).status).toBe(403);
    expect((await t.request('GET', `/api/projects/${second}`, { token: readonly.body.token })).status).toBe(403);

    const restricted = await create(admin, {
      name: 'limited restricted',
      keyType: 'service',
      permissionMode: 'restricted',
      permissions: ['project:view'],
      projectIds: [second],
      bindings: [{ scopeType: 'ORGANIZATION', scopeId: orgId }],
    });
    expect(restricted.body.apiKey.bindings).toEqual([{ role: 'CUSTOM', scopeType: 'PROJECT', scopeId: second }]);
    expect((await t.request('GET', `/api/projects/${second}`, { token: restricted.body.token })).status).toBe(200);
    expect((await t.request('GET', `/api/projects/${projectId}`, { token: restricted.body.token })).status).toBe(403);
    expect((await t.request('PATCH', `/api/projects/${second}`, { token: restricted.body.token, body: { name: 'no' } })).status).toBe(403);
  });

  it('only organization admins mint service keys or keys for another member', async () => {
    const member = await t.request('POST', '/api/members', { token: admin, body: { email: 'member@example.com', role: 'MEMBER' } });
    const forMember = await create(admin, {
      name: 'member key',
      assignedToUserId: member.body.userId,
      bindings: [{ role: 'MEMBER', scopeType: 'ORGANIZATION', scopeId: orgId }],
    });
    expect(forMember.status).toBe(200);
    expect(forMember.body.apiKey.ownerUserId).toBe(member.body.userId);
    const memberToken = forMember.body.token;

    expect((await create(memberToken, { name: 's', keyType: 'service' })).status).toBe(403);
    expect(
      (await create(memberToken, { name: 'p', assignedToUserId: t.creds.user.id, bindings: [{ role: 'VIEWER', scopeType: 'ORGANIZATION', scopeId: orgId }] })).status,
    ).toBe(403);
    // A member may mint a key for themself, but not with more than they hold.
    const own = await create(memberToken, { name: 'mine', bindings: [{ role: 'VIEWER', scopeType: 'ORGANIZATION', scopeId: orgId }] });
    expect(own.status).toBe(200);
    const escalate = await create(memberToken, { name: 'mine', bindings: [{ role: 'ADMIN', scopeType: 'ORGANIZATION', scopeId: orgId }] });
    expect(escalate.status).toBe(403);

    // Members list only their own keys, and cannot see or revoke the admin's.
    const list = await t.request('GET', '/api/api-keys', { token: memberToken });
    expect(list.body.data.every((k: { ownerUserId: string }) => k.ownerUserId === member.body.userId)).toBe(true);
    const adminKeyId = t.creds.adminApiKey.slice(3, 19);
    expect((await t.request('GET', `/api/api-keys/${adminKeyId}`, { token: memberToken })).status).toBe(404);
    expect((await t.request('DELETE', `/api/api-keys/${adminKeyId}`, { token: memberToken })).status).toBe(404);
  });

  it('a personal key is capped by its owner: demoting the owner narrows the key at once', async () => {
    const member = await t.request('POST', '/api/members', { token: admin, body: { email: 'capped@example.com', role: 'ADMIN' } });
    const key = await create(admin, {
      name: 'capped',
      assignedToUserId: member.body.userId,
      bindings: [{ role: 'ADMIN', scopeType: 'ORGANIZATION', scopeId: orgId }],
    });
    expect((await t.request('POST', '/api/projects', { token: key.body.token, body: { name: 'by capped' } })).status).toBe(200);
    await t.request('PATCH', `/api/members/${member.body.userId}`, { token: admin, body: { role: 'VIEWER' } });
    expect((await t.request('POST', '/api/projects', { token: key.body.token, body: { name: 'denied' } })).status).toBe(403);
    expect((await t.request('GET', '/api/projects', { token: key.body.token })).status).toBe(200);
    await t.request('DELETE', `/api/members/${member.body.userId}`, { token: admin });
    expect((await t.request('GET', '/api/projects', { token: key.body.token })).body.data).toEqual([]);
  });

  it('readonly keys may only view, whatever their bindings say', async () => {
    const ro = await create(admin, { name: 'ro', keyType: 'service', permissionMode: 'readonly' });
    expect((await t.request('GET', '/api/projects', { token: ro.body.token })).status).toBe(200);
    expect((await t.request('GET', '/api/api-keys', { token: ro.body.token })).status).toBe(200);
    expect((await t.request('POST', '/api/projects', { token: ro.body.token, body: { name: 'x' } })).status).toBe(403);
    expect((await t.request('PATCH', '/api/organization', { token: ro.body.token, body: { name: 'x' } })).status).toBe(403);
  });

  it('restricted keys apply exactly their permissions', async () => {
    const rk = await create(admin, {
      name: 'restricted',
      keyType: 'service',
      permissionMode: 'restricted',
      permissions: ['project:view', 'project:create'],
    });
    expect(rk.status).toBe(200);
    expect(rk.body.apiKey.bindings).toEqual([{ role: 'CUSTOM', scopeType: 'ORGANIZATION', scopeId: orgId }]);
    expect((await t.request('POST', '/api/projects', { token: rk.body.token, body: { name: 'allowed' } })).status).toBe(200);
    expect((await t.request('GET', '/api/members', { token: rk.body.token })).status).toBe(403);
    expect((await t.request('PATCH', `/api/projects/${projectId}`, { token: rk.body.token, body: { name: 'no' } })).status).toBe(403);
  });

  it('revoking stops a key at once; an expired key gets 401', async () => {
    const key = await create(admin, { name: 'short', keyType: 'service', expiresAt: new Date(clock.now().getTime() + 60_000).toISOString() });
    expect((await t.request('GET', '/api/projects', { token: key.body.token })).status).toBe(200);
    clock.advance(61_000);
    expect((await t.request('GET', '/api/projects', { token: key.body.token })).status).toBe(401);
    const got = await t.request('GET', `/api/api-keys/${key.body.apiKey.id}`, { token: admin });
    expect(got.body.status).toBe('expired');

    const other = await create(admin, { name: 'to revoke', keyType: 'service' });
    expect((await t.request('GET', '/api/projects', { token: other.body.token })).status).toBe(200);
    const del = await t.request('DELETE', `/api/api-keys/${other.body.apiKey.id}`, { token: admin });
    expect(del.status).toBe(200);
    expect(del.body.status).toBe('revoked');
    expect((await t.request('GET', '/api/projects', { token: other.body.token })).status).toBe(401);
    expect((await t.request('DELETE', '/api/api-keys/doesnotexist', { token: admin })).status).toBe(404);
  });

  it('accepts the three credential forms', async () => {
    const project = t.creds.projectApiKey;
    expect((await t.request('GET', '/api/projects', { token: admin })).status).toBe(200);
    expect((await t.request('GET', '/api/projects', { authToken: admin })).status).toBe(200);
    expect((await t.request('GET', '/api/projects', { basic: [projectId, admin] })).status).toBe(200);
    expect((await t.request('GET', '/api/projects', { headers: { authorization: 'Digest abc' } })).status).toBe(401);
    expect((await t.request('GET', '/api/projects', { headers: { authorization: 'Basic !!!' } })).status).toBe(401);
    // A project key is not an organization key.
    expect((await t.request('GET', '/api/projects', { token: project })).status).toBe(403);
  });
});
