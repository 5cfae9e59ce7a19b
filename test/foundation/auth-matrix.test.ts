import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rolePermissions, type RouteAuthEntry } from '../../src/platform/auth/index.ts';
import { createTenant, appDatabaseKinds, injectRequest, ManualClock, startApp, type RequestOptions, type TestApp, type Tenant } from '../support/harness.ts';
import { asBrowser, inviteAndAccept, signIn, type BrowserSession } from '../support/sessions.ts';

/**
 * Walks every route of the app's route table (each route declares its permission there)
 * with credentials that must not get through, and checks the answer and that nothing
 * of another tenant leaks.
 */
describe.each(appDatabaseKinds)('authentication matrix over every route (%s)', (kind) => {
  let t: TestApp;
  let other: Tenant;
  let routes: RouteAuthEntry[];
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
  const keys: Record<string, string> = {};
  const sessions: Record<'expired' | 'revoked' | 'admin' | 'viewer', BrowserSession> = {} as never;

  beforeAll(async () => {
    t = await startApp(kind, { clock });
    other = await createTenant(t);
    const { email, password } = t.creds.user;
    // Idle for longer than the idle limit (7 days): expired.
    sessions.expired = await signIn(t, email, password);
    clock.advance(7 * 86_400_000 + 60_000);
    sessions.revoked = await signIn(t, email, password);
    await t.request('POST', '/api/auth/signout', asBrowser(sessions.revoked));
    sessions.admin = await signIn(t, email, password);
    sessions.viewer = await inviteAndAccept(t, t.creds.adminApiKey, { email: 'viewer@matrix.test', role: 'VIEWER' });
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
  // Thousands of calls whose subject is the routes' authorization, not the network: the app's inject.
  const call = (route: RouteAuthEntry, opts: RequestOptions) => injectRequest(t, route.method, pathOf(route), opts);
  const projectHeader = (route: RouteAuthEntry): RequestOptions => (route.auth.scope === 'project' ? { projectId: t.creds.project.id } : {});
  const permissionOf = (route: RouteAuthEntry) => ('permission' in route.auth ? route.auth.permission : null);

  it('has routes to check, each with a declared permission', () => {
    expect(routes.length).toBeGreaterThan(10);
    for (const r of routes) expect(r.auth.scope).toMatch(/^(project|organization|projectParam|session)$/);
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
      if ((perm && !perm.endsWith(':view')) || r.auth.scope === 'session') expect(res.status, `${r.method} ${r.url}`).toBe(403);
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

  it('the datasets routes are in the table, and a key restricted to datasets reaches them and nothing else', async () => {
    const datasetRoutes = routes.filter((r) => r.url.startsWith('/api/dataset'));
    expect(datasetRoutes.map((r) => `${r.method} ${r.url}`).sort()).toEqual(
      [
        'GET /api/dataset',
        'POST /api/dataset',
        'POST /api/dataset/upload',
        'GET /api/dataset/:slugOrId',
        'PATCH /api/dataset/:slugOrId',
        'DELETE /api/dataset/:slugOrId',
        'GET /api/dataset/:slugOrId/records',
        'POST /api/dataset/:slugOrId/records',
        'PATCH /api/dataset/:slugOrId/records/:recordId',
        'DELETE /api/dataset/:slugOrId/records',
        'POST /api/dataset/:slugOrId/entries',
        'POST /api/dataset/:slugOrId/upload',
        'GET /api/dataset/:slugOrId/versions',
        'GET /api/dataset/:slugOrId/export',
        'POST /api/dataset/:slugOrId/from-traces',
        'GET /api/dataset/:slugOrId/imports/:importId',
        'GET /api/dataset/:slugOrId/trace-mapping',
      ].sort(),
    );
    const admin = t.creds.adminApiKey;
    const mint = async (body: object) => (await t.request('POST', '/api/api-keys', { token: admin, body })).body.token as string;
    const viewOnly = await mint({ name: 'datasets view', keyType: 'service', permissionMode: 'restricted', permissions: ['datasets:view'] });
    // A personal key bound to the project, limited to datasets.
    const manager = await mint({
      name: 'datasets manage',
      permissionMode: 'restricted',
      permissions: ['datasets:manage'],
      bindings: [{ role: 'CUSTOM', scopeType: 'PROJECT', scopeId: t.creds.project.id }],
    });
    expect(manager, 'the bound key was minted').toBeTruthy();
    const headers = { projectId: t.creds.project.id };
    for (const r of datasetRoutes.filter((x) => !x.url.endsWith('/from-traces'))) {
      const write = 'permission' in r.auth && r.auth.permission !== null && !r.auth.permission.endsWith(':view');
      const asViewer = await call(r, { token: viewOnly, ...headers });
      if (write) expect(asViewer.status, `view-only ${r.method} ${r.url}`).toBe(403);
      else expect([401, 403], `view-only ${r.method} ${r.url}`).not.toContain(asViewer.status);
      const asManager = await call(r, { token: manager, ...headers });
      expect([401, 403], `manager ${r.method} ${r.url}`).not.toContain(asManager.status);
    }
    // The datasets key reaches nothing else.
    expect((await t.request('GET', '/api/prompts', { token: manager, ...headers })).status).toBe(403);
    expect((await t.request('POST', '/api/dataset', { token: manager, ...headers, body: { name: 'made by a restricted key' } })).status).toBe(201);
  });

  it('the score-config and review-queue routes are in the table; a VIEWER reads them and changes nothing', async () => {
    const reviewRoutes = routes.filter((r) => r.url.startsWith('/api/score-configs') || r.url.startsWith('/api/queues'));
    expect(reviewRoutes.map((r) => `${r.method} ${r.url}`).sort()).toEqual(
      [
        'GET /api/score-configs',
        'POST /api/score-configs',
        'GET /api/score-configs/:id',
        'PATCH /api/score-configs/:id',
        'DELETE /api/score-configs/:id',
        'GET /api/queues',
        'POST /api/queues',
        'GET /api/queues/:id',
        'PATCH /api/queues/:id',
        'DELETE /api/queues/:id',
        'POST /api/queues/:id/items',
        'GET /api/queues/:id/items',
        'GET /api/queues/:id/items/:itemId',
        'POST /api/queues/:id/next',
        'POST /api/queues/:id/items/:itemId/complete',
        'POST /api/queues/:id/items/:itemId/skip',
        'POST /api/queues/:id/items/:itemId/release',
      ].sort(),
    );
    for (const r of reviewRoutes) expect(permissionOf(r), `${r.method} ${r.url}`).toMatch(/^(scoreConfigs|reviewQueues):/);
    const headers = { projectId: t.creds.project.id };
    for (const r of reviewRoutes) {
      const write = !permissionOf(r)!.endsWith(':view');
      const asViewer = await call(r, asBrowser(sessions.viewer, headers));
      const asReadonly = await call(r, { token: keys.readonly, ...headers });
      if (write) {
        expect(asViewer.status, `viewer ${r.method} ${r.url}`).toBe(403);
        expect(asReadonly.status, `readonly ${r.method} ${r.url}`).toBe(403);
      } else {
        expect([401, 403], `viewer ${r.method} ${r.url}`).not.toContain(asViewer.status);
        expect([401, 403], `readonly ${r.method} ${r.url}`).not.toContain(asReadonly.status);
      }
    }
    // A key restricted to prompts reaches none of them.
    for (const r of reviewRoutes) expect((await call(r, { token: keys.restricted, ...headers })).status, `${r.method} ${r.url}`).toBe(403);
  });

  it('API keys cannot call the routes of a signed-in session: 403 session_required', async () => {
    for (const r of routes.filter((x) => x.auth.scope === 'session')) {
      const res = await call(r, { token: t.creds.adminApiKey });
      expect(res.status, `${r.method} ${r.url}`).toBe(403);
      expect(res.body.error.code).toBe('session_required');
    }
  });

  it('API key ownership: a readonly key revokes nothing; a member revokes only their own keys', async () => {
    const admin = t.creds.adminApiKey;
    const orgId = t.creds.organization.id;
    const adminKeyId = admin.slice(3, 19);
    const mint = async (token: string, body: object) => {
      const res = await t.request('POST', '/api/api-keys', { token, body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { token: string; apiKey: { id: string } };
    };
    // The probe's case: a readonly personal key of the admin, bound ADMIN on the organization.
    const readonly = await mint(admin, {
      name: 'ro personal',
      permissionMode: 'readonly',
      bindings: [{ role: 'ADMIN', scopeType: 'ORGANIZATION', scopeId: orgId }],
    });
    expect((await t.request('DELETE', `/api/api-keys/${adminKeyId}`, { token: readonly.token })).status).toBe(403);
    expect((await t.request('DELETE', `/api/api-keys/${readonly.apiKey.id}`, { token: readonly.token })).status).toBe(403);
    expect((await t.request('GET', '/api/projects', { token: admin })).status).toBe(200);
    expect((await t.request('GET', '/api/projects', { token: readonly.token })).status).toBe(200);

    const member = async (email: string) => {
      const res = await t.request('POST', '/api/members', { token: admin, body: { email, role: 'MEMBER' } });
      return res.body.userId as string;
    };
    const [alice, bob] = [await member('alice-keys@example.com'), await member('bob-keys@example.com')];
    const binding = [{ role: 'MEMBER', scopeType: 'ORGANIZATION', scopeId: orgId }];
    const aliceKey = await mint(admin, { name: 'alice', assignedToUserId: alice, bindings: binding });
    const aliceSecond = await mint(aliceKey.token, { name: 'alice 2', bindings: binding });
    const bobKey = await mint(admin, { name: 'bob', assignedToUserId: bob, bindings: binding });
    // Another member's key is not even confirmed to exist; the admin's neither.
    expect((await t.request('DELETE', `/api/api-keys/${bobKey.apiKey.id}`, { token: aliceKey.token })).status).toBe(404);
    expect((await t.request('DELETE', `/api/api-keys/${adminKeyId}`, { token: aliceKey.token })).status).toBe(404);
    expect((await t.request('GET', '/api/projects', { token: bobKey.token })).status).toBe(200);
    // Her own key: revoked, and it stops working at once.
    expect((await t.request('DELETE', `/api/api-keys/${aliceSecond.apiKey.id}`, { token: aliceKey.token })).status).toBe(200);
    expect((await t.request('GET', '/api/projects', { token: aliceSecond.token })).status).toBe(401);
    // A readonly key of a member cannot revoke even the member's own keys.
    const aliceReadonly = await mint(aliceKey.token, { name: 'alice ro', permissionMode: 'readonly', bindings: binding });
    expect((await t.request('DELETE', `/api/api-keys/${aliceKey.apiKey.id}`, { token: aliceReadonly.token })).status).toBe(403);
    expect((await t.request('GET', '/api/projects', { token: aliceKey.token })).status).toBe(200);
  });

  it('the admin key gets past authentication on every read', async () => {
    for (const r of routes.filter((x) => x.method === 'GET' && x.auth.scope !== 'session')) {
      const res = await call(r, { token: t.creds.adminApiKey, ...projectHeader(r) });
      expect([401, 403], `${r.method} ${r.url}`).not.toContain(res.status);
    }
  });

  it('experiments: each route needs experiments:view or experiments:create; ADMIN, MEMBER and a project key log, a VIEWER reads only', async () => {
    const experimentRoutes = routes.filter((r) => /^\/api\/(experiment\/|experiments|evaluations\/batch\/|evaluations\/v3\/)/.test(r.url));
    expect(experimentRoutes.map((r) => `${r.method} ${r.url} ${permissionOf(r)}`).sort()).toEqual(
      [
        'GET /api/evaluations/v3/runs/:runId experiments:view',
        'GET /api/evaluations/v3/runs/:runId/results experiments:view',
        'GET /api/experiments experiments:view',
        'GET /api/experiments/runs experiments:view',
        'GET /api/experiments/runs/:runId experiments:view',
        'GET /api/experiments/runs/:runId/results experiments:view',
        'GET /api/experiments/:slug/runs/:runId/summary experiments:view',
        'GET /api/experiments/:slug/runs/:runId/rows experiments:view',
        'GET /api/experiments/:slug/compare experiments:view',
        'GET /api/experiments/:slug/compare/rows experiments:view',
        'GET /api/experiments/:slug/compare/regressions experiments:view',
        'GET /api/experiments/:slug/baseline experiments:view',
        'PUT /api/experiments/:slug/baseline experiments:update',
        'PATCH /api/experiments/:slug/runs/:runId experiments:update',
        'POST /api/evaluations/batch/log_results experiments:create',
        'POST /api/experiment/init experiments:create',
        'PUT /api/experiments/:slug/definition experiments:create',
        'GET /api/experiments/:slug/definition experiments:view',
        'POST /api/experiments/:slug/run experiments:create',
        'POST /api/evaluations/v3/:slug/run experiments:create',
        'POST /api/experiments/:slug/runs/:runId/stop experiments:create',
      ].sort(),
    );
    for (const role of ['ADMIN', 'MEMBER'] as const) expect(rolePermissions(role).has('experiments:create'), role).toBe(true);
    expect(rolePermissions('VIEWER').has('experiments:view')).toBe(true);
    expect(rolePermissions('VIEWER').has('experiments:create')).toBe(false);
    for (const role of ['ADMIN', 'MEMBER', 'VIEWER'] as const) expect(rolePermissions(role).has('datasets:view'), role).toBe(true);
    const body = { experiment_slug: 'matrix', run_id: 'matrix-run', dataset: [{ index: 0, entry: { q: 1 } }] };
    const post = (opts: RequestOptions) => t.request('POST', '/api/evaluations/batch/log_results', { body, ...opts });
    expect((await post({ authToken: t.creds.projectApiKey })).status).toBe(200);
    expect((await post(asBrowser(sessions.admin, { projectId: t.creds.project.id }))).status).toBe(200);
    expect((await post(asBrowser(sessions.viewer, { projectId: t.creds.project.id }))).status).toBe(403);
    expect((await post({ token: keys.readonly, projectId: t.creds.project.id })).status).toBe(403);
    const read = await t.request('GET', '/api/experiments/runs/matrix-run?experimentSlug=matrix', asBrowser(sessions.viewer, { projectId: t.creds.project.id }));
    expect(read.status).toBe(200);
    expect(read.body.progress).toBe(1);
    expect((await t.request('GET', '/api/experiments', { token: keys.readonly, projectId: t.creds.project.id })).status).toBe(200);
    // Platform runs: defining, starting and stopping need experiments:create; a VIEWER reads the definition only.
    const definition = { targets: [{ id: 'agent', type: 'http', url: 'http://127.0.0.1:9/agent' }] };
    const put = (opts: RequestOptions) => t.request('PUT', '/api/experiments/matrix-platform/definition', { body: definition, ...opts });
    expect((await put({ authToken: t.creds.projectApiKey })).status).toBe(200);
    expect((await put(asBrowser(sessions.viewer, { projectId: t.creds.project.id }))).status).toBe(403);
    expect((await put({ token: keys.readonly, projectId: t.creds.project.id })).status).toBe(403);
    const viewerRead = await t.request('GET', '/api/experiments/matrix-platform/definition', asBrowser(sessions.viewer, { projectId: t.creds.project.id }));
    expect(viewerRead.status).toBe(200);
    for (const url of ['/api/experiments/matrix-platform/run', '/api/evaluations/v3/matrix-platform/run', '/api/experiments/matrix-platform/runs/run_x/stop']) {
      expect((await t.request('POST', url, asBrowser(sessions.viewer, { projectId: t.creds.project.id }))).status, url).toBe(403);
      expect((await t.request('POST', url, { token: keys.readonly, projectId: t.creds.project.id })).status, url).toBe(403);
    }
  });

  describe('the session cookie', () => {
    const isMutation = (r: RouteAuthEntry) => !['GET', 'HEAD', 'OPTIONS'].includes(r.method);

    it('a revoked or an expired session: 401 on every route', async () => {
      for (const r of routes) {
        for (const which of ['revoked', 'expired'] as const) {
          const res = await call(r, asBrowser(sessions[which], projectHeader(r)));
          expect(res.status, `${which} ${r.method} ${r.url}`).toBe(401);
        }
      }
    });

    it('a cookie that is no session: 401', async () => {
      const forged: BrowserSession = { cookie: `spyglass_session=${'A'.repeat(48)}`, csrfToken: 'x', session: null };
      for (const r of routes) expect((await call(r, asBrowser(forged, projectHeader(r)))).status, `${r.method} ${r.url}`).toBe(401);
    });

    it('a mutation without the CSRF token, or with a wrong one: 403 csrf_token_invalid', async () => {
      for (const r of routes.filter(isMutation)) {
        for (const csrf of [false, 'wrong', sessions.viewer.csrfToken]) {
          const res = await call(r, asBrowser(sessions.admin, { csrf, ...projectHeader(r) }));
          expect(res.status, `${r.method} ${r.url} csrf=${csrf}`).toBe(403);
          // Every route group's error shape names it (the prompts group answers a message only).
          expect(res.text, `${r.method} ${r.url}`).toMatch(/csrf_token_invalid|X-CSRF-Token/);
        }
      }
    });

    it('a VIEWER session on a mutation its role does not grant: 403', async () => {
      const viewer = rolePermissions('VIEWER');
      for (const r of routes.filter(isMutation)) {
        const perm = permissionOf(r);
        if (!perm || viewer.has(perm)) continue;
        const res = await call(r, asBrowser(sessions.viewer, projectHeader(r)));
        expect(res.status, `${r.method} ${r.url}`).toBe(403);
      }
    });

    it('reads follow the role: a VIEWER gets past authentication where VIEWER may read, 403 elsewhere', async () => {
      const viewer = rolePermissions('VIEWER');
      for (const r of routes.filter((x) => x.method === 'GET')) {
        const perm = permissionOf(r);
        const res = await call(r, asBrowser(sessions.viewer, projectHeader(r)));
        if (perm && !viewer.has(perm)) expect(res.status, `${r.method} ${r.url}`).toBe(403);
        else expect([401, 403], `${r.method} ${r.url}`).not.toContain(res.status);
      }
    });

    it('the admin session gets past authentication on every read', async () => {
      for (const r of routes.filter((x) => x.method === 'GET')) {
        const res = await call(r, asBrowser(sessions.admin, projectHeader(r)));
        expect([401, 403], `${r.method} ${r.url}`).not.toContain(res.status);
      }
    });

    it('another organization\'s project through X-Project-Id: 403', async () => {
      for (const r of routes.filter((x) => x.auth.scope === 'project' && x.method === 'GET')) {
        const res = await call(r, asBrowser(sessions.admin, { projectId: other.projectId }));
        expect(res.status, `${r.method} ${r.url}`).toBe(403);
      }
    });

    it('credential headers win over the cookie: a bad key next to a good cookie is still 401', async () => {
      const wrong = 'sg-AAAAAAAAAAAAAAAA_' + 'B'.repeat(48);
      for (const r of routes) {
        const res = await call(r, asBrowser(sessions.admin, { token: wrong, ...projectHeader(r) }));
        expect(res.status, `${r.method} ${r.url}`).toBe(401);
      }
    });
  });
});