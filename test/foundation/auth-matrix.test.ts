import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteAuthEntry } from '../../src/platform/auth/index.ts';
import { createTenant, databaseKinds, ManualClock, startApp, type RequestOptions, type TestApp, type Tenant } from '../support/harness.ts';

/**
 * Walks every route of the app's route table (each route declares its permission there)
 * with credentials that must not get through, and checks the answer and that nothing
 * of another tenant leaks.
 */
describe.each(databaseKinds)('authentication matrix over every route (%s)', (kind) => {
  let t: TestApp;
  let other: Tenant;
  let routes: RouteAuthEntry[];
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    t = await startApp(kind, { clock });
    other = await createTenant(t);
    routes = t.app.routeTable.filter((r) => r.auth.scope !== 'public');
    const admin = t.creds.adminApiKey;
    const mint = async (body: object) => (await t.request('POST', '/api/api-keys', { token: admin, body })).body.token as string;
    keys.readonly = await mint({ name: 'ro', keyType: 'service', permissionMode: 'readonly' });
    keys.restricted = await mint({ name: 'rs', keyType: 'service', permissionMode: 'restricted', permissions: ['prompts:view'] });
    keys.revoked = await mint({ name: 'rv', keyType: 'service' });
    const revokedId = keys.revoked.slice(3, 19);
    await t.request('DELETE', `/api/api-keys/${revokedId}`, { token: admin });
    keys.expired = await mint({ name: 'ex', keyType: 'service', expiresAt: new Date(clock.now().getTime() + 1000).toISOString() });
    clock.advance(2000);
  });
  afterAll(() => t.close());

  const pathOf = (route: RouteAuthEntry) =>
    route.url.replace(/:(\w+)/g, (_, name) =>
      route.auth.scope === 'projectParam' && name === route.auth.param ? t.creds.project.id : `missing_${name}`,
    );
  const call = (route: RouteAuthEntry, opts: RequestOptions) => t.request(route.method, pathOf(route), opts);
  const projectHeader = (route: RouteAuthEntry): RequestOptions => (route.auth.scope === 'project' ? { projectId: t.creds.project.id } : {});
  const permissionOf = (route: RouteAuthEntry) => ('permission' in route.auth ? route.auth.permission : null);

  it('has routes to check, each with a declared permission', () => {
    expect(routes.length).toBeGreaterThan(10);
    for (const r of routes) expect(r.auth.scope).toMatch(/^(project|organization|projectParam)$/);
  });

  it('no credentials: 401', async () => {
    for (const r of routes) expect((await call(r, {})).status, `${r.method} ${r.url}`).toBe(401);
  });

  it('a wrong or malformed token: 401', async () => {
    const wrong = 'sg-AAAAAAAAAAAAAAAA_' + 'B'.repeat(48);
    const tampered = t.creds.adminApiKey.slice(0, -1) + (t.creds.adminApiKey.endsWith('a') ? 'b' : 'a');
    for (const r of routes) {
      expect((await call(r, { token: wrong, ...projectHeader(r) })).status, `${r.method} ${r.url}`).toBe(401);
      expect((await call(r, { token: tampered, ...projectHeader(r) })).status).toBe(401);
      expect((await call(r, { authToken: 'nonsense' })).status).toBe(401);
    }
  });

  it('a revoked key and an expired key: 401', async () => {
    for (const r of routes) {
      expect((await call(r, { token: keys.revoked, ...projectHeader(r) })).status, `${r.method} ${r.url}`).toBe(401);
      expect((await call(r, { token: keys.expired, ...projectHeader(r) })).status, `${r.method} ${r.url}`).toBe(401);
    }
  });

  it('a key of another project or organization gets no access', async () => {
    for (const r of routes) {
      const label = `${r.method} ${r.url}`;
      if (r.auth.scope === 'project') {
        // Basic pairing this project with another project's key.
        expect((await call(r, { basic: [t.creds.project.id, other.projectToken] })).status, label).toBe(401);
        // Another organization's admin naming this project.
        expect((await call(r, { token: other.adminToken, projectId: t.creds.project.id })).status, label).toBe(403);
      } else {
        // Project keys cannot use organization routes at all.
        expect((await call(r, { token: other.projectToken })).status, label).toBe(403);
        expect((await call(r, { token: t.creds.projectApiKey })).status, label).toBe(403);
        if (r.auth.scope === 'projectParam') {
          expect((await call(r, { token: other.adminToken })).status, label).toBe(404);
        }
      }
    }
  });

  it('a readonly key on a write: 403', async () => {
    for (const r of routes) {
      const perm = permissionOf(r);
      const res = await call(r, { token: keys.readonly, ...projectHeader(r) });
      if (perm && !perm.endsWith(':view')) expect(res.status, `${r.method} ${r.url}`).toBe(403);
      else expect([401, 403], `${r.method} ${r.url}`).not.toContain(res.status);
    }
  });

  it('a restricted key outside its permissions: 403', async () => {
    for (const r of routes) {
      const perm = permissionOf(r);
      const res = await call(r, { token: keys.restricted, ...projectHeader(r) });
      if (perm && perm !== 'prompts:view' && perm !== 'prompts:manage') expect(res.status, `${r.method} ${r.url}`).toBe(403);
    }
  });

  it('the admin key gets past authentication on every read', async () => {
    for (const r of routes.filter((x) => x.method === 'GET')) {
      const res = await call(r, { token: t.creds.adminApiKey, ...projectHeader(r) });
      expect([401, 403], `${r.method} ${r.url}`).not.toContain(res.status);
    }
  });
});
