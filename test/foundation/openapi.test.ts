import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/harness.ts';
import { WEB_ROUTES } from '../../src/web-app.ts';

describe('OpenAPI document and health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('pglite');
  });
  afterAll(() => t.close());

  it('describes every route that exists, from the same zod schemas that validate', async () => {
    const res = await t.request('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.info.version).toBe('1.0.0');
    const documented = new Set<string>();
    for (const [p, ops] of Object.entries(res.body.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${p}`);
    }
    // The web app's pages and assets are not API: the document leaves them out.
    const routes = t.app.routeTable.filter((r) => r.url !== '/api/openapi.json' && !WEB_ROUTES.includes(r.url));
    for (const r of routes) {
      expect(documented, `${r.method} ${r.url}`).toContain(`${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
    }
    const create = res.body.paths['/api/api-keys'].post.requestBody.content['application/json'].schema;
    expect(create.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 100 });
    expect(create.properties.bindings.maxItems).toBe(20);
    expect(create.properties.projectIds).toMatchObject({ minItems: 1, maxItems: 50 });
    expect(res.body.components.securitySchemes).toHaveProperty('project_api_key');
  });

  it('healthz (liveness) answers 200 without asking the database', async () => {
    const res = await t.request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('unknown routes answer 404 in the error shape', async () => {
    const res = await t.request('GET', '/api/nope');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ type: 'not_found', code: 'route_not_found' });
  });
});
