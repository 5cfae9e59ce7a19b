import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/harness.ts';
import { renderApiReference, type OpenApiDocument } from '../../scripts/api-reference.ts';

const REFERENCE = path.resolve(import.meta.dirname, '../../docs/api-reference.md');

/**
 * docs/api-reference.md is generated from the OpenAPI document: a route, field or bound
 * changed without regenerating it fails here. `npm run docs:api` rewrites it.
 */
describe('the API reference in docs/', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('pglite');
  });
  afterAll(() => t.close());

  it('is the one the OpenAPI document gives', async () => {
    const res = await t.request('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    const reference = renderApiReference(res.body as OpenApiDocument);
    if (process.env.SPYGLASS_WRITE_API_REFERENCE === '1') fs.writeFileSync(REFERENCE, reference);
    const current = fs.existsSync(REFERENCE) ? fs.readFileSync(REFERENCE, 'utf8') : '';
    expect(current, 'docs/api-reference.md is out of date: run npm run docs:api').toBe(reference);
  });
});
