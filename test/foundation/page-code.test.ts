import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/harness.ts';
import { UI_DIR } from '../../src/web-app.ts';

/**
 * The first answer of a page names that page's own code (the route's module and the chunks it
 * imports) beside the entry's, so a fresh browser fetches it at once instead of after the entry
 * ran. Read from the built app (npm run build:ui) and its manifest.
 */
describe.runIf(fs.existsSync(path.join(UI_DIR, '.vite', 'manifest.json')))('the page code named in the first answer', () => {
  let web: TestApp;
  beforeAll(async () => {
    web = await startApp('pglite');
  }, 60_000);
  afterAll(async () => {
    await web?.close();
  });

  const page = async (p: string) => {
    const res = await fetch(web.baseUrl + p, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    const html = await res.text();
    return { status: res.status, preloads: [...html.matchAll(/<link rel="modulepreload" crossorigin href="([^"]+)">/g)].map((m) => m[1]) };
  };
  const built = [...fs.readFileSync(path.join(UI_DIR, 'index.html'), 'utf8').matchAll(/<link rel="modulepreload" crossorigin href="([^"]+)">/g)].map((m) => m[1]);

  it("a project's traces list: the shell and the list's code, each named once, each served", async () => {
    const { status, preloads } = await page(`/p/${web.creds.project.id}/traces?range=24h`);
    expect(status).toBe(200);
    const own = preloads.filter((p) => !built.includes(p));
    expect(own.some((p) => /\/assets\/shell-[\w-]+\.js$/.test(p))).toBe(true);
    expect(own.some((p) => /\/assets\/traces-[\w-]+\.js$/.test(p))).toBe(true);
    expect(new Set(preloads).size).toBe(preloads.length);
    for (const p of own) expect((await fetch(web.baseUrl + p)).status, p).toBe(200);
    // The root opens the same list.
    expect((await page('/')).preloads).toEqual(preloads);
  });

  it('another page names its own module; sign-in names no shell; an unknown page nothing of its own', async () => {
    const trace = (await page(`/p/${web.creds.project.id}/traces/abc`)).preloads;
    expect(trace.some((p) => /\/assets\/trace-[\w-]+\.js$/.test(p))).toBe(true);
    expect(trace.some((p) => /\/assets\/traces-[\w-]+\.js$/.test(p))).toBe(false);
    const signin = (await page('/signin')).preloads;
    expect(signin.some((p) => /\/assets\/signin-[\w-]+\.js$/.test(p))).toBe(true);
    expect(signin.some((p) => /\/assets\/shell-[\w-]+\.js$/.test(p))).toBe(false);
    const unknown = await page('/no-such-page');
    expect(unknown.status).toBe(404);
    expect(unknown.preloads).toEqual(built);
  });
});
