import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/harness.ts';
import { renderApiReference, type OpenApiDocument } from '../../scripts/api-reference.ts';
import { renderUiApiPaths } from '../../scripts/ui-api-paths.ts';

const REFERENCE = path.resolve(import.meta.dirname, '../../docs/api-reference.md');
const UI_PATHS = path.resolve(import.meta.dirname, '../../src/ui/api/openapi.gen.ts');

/**
 * Two files are generated from the OpenAPI document: docs/api-reference.md and the web app's
 * path types (src/ui/api/openapi.gen.ts). A route, field or bound changed without regenerating
 * them fails here. `npm run generate` rewrites both.
 */
describe('the files generated from the OpenAPI document', () => {
  let t: TestApp;
  let doc: OpenApiDocument;
  const write = process.env.SPYGLASS_WRITE_GENERATED === '1';
  beforeAll(async () => {
    t = await startApp('pglite');
    const res = await t.request('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body as OpenApiDocument;
  });
  afterAll(() => t.close());

  function check(file: string, content: string) {
    if (write) fs.writeFileSync(file, content);
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    expect(current, `${path.relative(process.cwd(), file)} is out of date: run npm run generate`).toBe(content);
  }

  it('lists every route under a section whose title its route group declares', () => {
    const titles = new Map((doc.tags ?? []).map((t) => [t.name, t['x-displayName']]));
    const untitled: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const title = titles.get(op.tags?.[0] ?? '');
        // A title is written for people: capitalised, not the tag's name in lower case.
        if (!title || !/^\p{Lu}/u.test(title)) untitled.push(`${method.toUpperCase()} ${path} (${op.tags?.[0] ?? 'no tag'})`);
        expect(op, `${method} ${path}`).not.toHaveProperty('x-tag-title');
      }
    }
    expect(untitled).toEqual([]);
    const reference = renderApiReference(doc);
    for (const title of titles.values()) expect(reference).toContain(`\n## ${title}\n`);
  });

  it('docs/api-reference.md is the one the document gives', () => {
    check(REFERENCE, renderApiReference(doc));
  });

  it("the web app's path types are the ones the document gives", async () => {
    check(UI_PATHS, await renderUiApiPaths(doc));
  });
});
