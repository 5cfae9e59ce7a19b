import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';

describe.each(appDatabaseKinds)('projects and members (%s)', (kind) => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startApp(kind);
    admin = t.creds.adminApiKey;
  });
  afterAll(() => t.close());

  it('lists the first-start project', async () => {
    const res = await t.request('GET', '/api/projects', { token: admin });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ id: t.creds.project.id, name: 'My Project', organizationId: t.creds.organization.id });
  });

  it('creates a project and answers its project key once; the key works on that project only', async () => {
    const res = await t.request('POST', '/api/projects', { token: admin, body: { name: 'Checkout bot', retentionDays: 30 } });
    expect(res.status).toBe(200);
    expect(res.body.project).toMatchObject({ name: 'Checkout bot', retentionDays: 30 });
    expect(res.body.token).toMatch(/^sgp-[A-Za-z0-9]{16}_[A-Za-z0-9]{48}$/);
    expect(res.body.apiKey).toMatchObject({ keyType: 'project', projectId: res.body.project.id });
    const id = res.body.project.id;

    const got = await t.request('GET', `/api/projects/${id}`, { token: admin });
    expect(got.status).toBe(200);
    expect(got.body.name).toBe('Checkout bot');
    // The token is never shown again.
    const key = await t.request('GET', `/api/api-keys/${res.body.apiKey.id}`, { token: admin });
    expect(key.status).toBe(200);
    expect(JSON.stringify(key.body)).not.toContain(res.body.token.split('_')[1]);
  });

  it('renames a project, changes retention, and rejects bad input naming the field', async () => {
    const created = await t.request('POST', '/api/projects', { token: admin, body: { name: 'Temp' } });
    const id = created.body.project.id;
    const renamed = await t.request('PATCH', `/api/projects/${id}`, { token: admin, body: { name: 'Renamed', retentionDays: null } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', retentionDays: null });

    const empty = await t.request('PATCH', `/api/projects/${id}`, { token: admin, body: {} });
    expect(empty.status).toBe(400);
    const badRetention = await t.request('PATCH', `/api/projects/${id}`, { token: admin, body: { retentionDays: 0 } });
    expect(badRetention.status).toBe(400);
    expect(badRetention.body.error.meta.field).toBe('body.retentionDays');
    const longName = await t.request('POST', '/api/projects', { token: admin, body: { name: 'x'.repeat(101) } });
    expect(longName.status).toBe(400);
    expect(longName.body.error.message).toContain('body.name');
  });

  it('deletes a project: its key stops working and it is gone from the list', async () => {
    const created = await t.request('POST', '/api/projects', { token: admin, body: { name: 'Doomed' } });
    const id = created.body.project.id;
    const del = await t.request('DELETE', `/api/projects/${id}`, { token: admin });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id, deleted: true });
    expect((await t.request('GET', `/api/projects/${id}`, { token: admin })).status).toBe(404);
    const list = await t.request('GET', '/api/projects', { token: admin });
    expect(list.body.data.map((p: { id: string }) => p.id)).not.toContain(id);
    expect((await t.request('DELETE', `/api/projects/${id}`, { token: admin })).status).toBe(404);
  });

  it('rotates a project key: the old token stops at once, the new one works', async () => {
    const created = await t.request('POST', '/api/projects', { token: admin, body: { name: 'Rotating' } });
    const id = created.body.project.id;
    const old = created.body.token;
    const orgKeyCheck = await t.request('POST', `/api/projects/${id}/rotate-key`, { token: old });
    expect(orgKeyCheck.status).toBe(403); // project keys cannot call organization routes
    const rotated = await t.request('POST', `/api/projects/${id}/rotate-key`, { token: admin });
    expect(rotated.status).toBe(200);
    expect(rotated.body.token).not.toBe(old);
    const oldKey = await t.request('GET', `/api/api-keys/${created.body.apiKey.id}`, { token: admin });
    expect(oldKey.body.status).toBe('revoked');
  });

  it('mints another project key while the existing ones keep working', async () => {
    const created = await t.request('POST', '/api/projects', { token: admin, body: { name: 'More keys' } });
    const id = created.body.project.id;
    const first = created.body.token;
    const added = await t.request('POST', `/api/projects/${id}/api-keys`, { token: admin });
    expect(added.status).toBe(200);
    expect(added.body.token).toMatch(/^sgp-/);
    expect(added.body.token).not.toBe(first);
    for (const key of [first, added.body.token]) {
      expect((await t.request('POST', '/api/trace/search', { authToken: key, body: {} })).status).toBe(200);
    }
    expect((await t.request('POST', `/api/projects/${id}/api-keys`, { token: first })).status).toBe(403);
  });

  it('manages members and keeps at least one admin', async () => {
    const added = await t.request('POST', '/api/members', { token: admin, body: { email: 'dev@example.com', role: 'MEMBER' } });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ email: 'dev@example.com', role: 'MEMBER' });
    const again = await t.request('POST', '/api/members', { token: admin, body: { email: 'DEV@example.com', role: 'VIEWER' } });
    expect(again.status).toBe(409);
    const badRole = await t.request('POST', '/api/members', { token: admin, body: { email: 'x@example.com', role: 'OWNER' } });
    expect(badRole.status).toBe(400);
    expect(badRole.body.error.meta.field).toBe('body.role');
    const list = await t.request('GET', '/api/members', { token: admin });
    expect(list.body.data.map((m: { email: string }) => m.email)).toEqual([t.creds.user.email, 'dev@example.com'].sort());

    const demoteLast = await t.request('PATCH', `/api/members/${t.creds.user.id}`, { token: admin, body: { role: 'MEMBER' } });
    expect(demoteLast.status).toBe(409);
    const promoted = await t.request('PATCH', `/api/members/${added.body.userId}`, { token: admin, body: { role: 'VIEWER' } });
    expect(promoted.body.role).toBe('VIEWER');
    const removed = await t.request('DELETE', `/api/members/${added.body.userId}`, { token: admin });
    expect(removed.status).toBe(200);
  });

  it('renames the organization', async () => {
    const res = await t.request('PATCH', '/api/organization', { token: admin, body: { name: 'Acme' } });
    expect(res.status).toBe(200);
    expect((await t.request('GET', '/api/organization', { token: admin })).body.name).toBe('Acme');
  });

  it('never shows one organization the projects or keys of another', async () => {
    const other = await createTenant(t);
    const mine = await t.request('GET', '/api/projects', { token: admin });
    const theirs = await t.request('GET', '/api/projects', { token: other.adminToken });
    expect(theirs.body.data.map((p: { id: string }) => p.id)).toEqual([other.projectId]);
    expect(mine.body.data.map((p: { id: string }) => p.id)).not.toContain(other.projectId);
    expect((await t.request('GET', `/api/projects/${other.projectId}`, { token: admin })).status).toBe(404);
    expect((await t.request('DELETE', `/api/projects/${other.projectId}`, { token: admin })).status).toBe(404);
    const keys = await t.request('GET', '/api/api-keys', { token: other.adminToken });
    expect(keys.body.data.every((k: { organizationId: string }) => k.organizationId === other.organizationId)).toBe(true);
  });
});
