import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/harness.ts';
import { UI_DIR } from '../../src/web-app.ts';

/** The built app as a browser and as API clients meet it (npm ci builds dist/ui; see `prepare`). */
describe('serving the web app', () => {
  let t: TestApp;
  const html = { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } };
  beforeAll(async () => {
    t = await startApp('pglite');
  });
  afterAll(() => t.close());

  it('answers a browser navigation to / and to deep links with the app, with security headers and no caching', async () => {
    for (const url of ['/', '/signin', '/p/proj_x/traces', '/p/proj_x/traces/some-trace?span=abc', '/invite/tok', '/reset-password/tok']) {
      const res = await t.request('GET', url, html);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.text).toContain('<div id="root">');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('GET / asking for JSON still answers the prompts list', async () => {
    const viaRoot = await t.request('GET', '/', { authToken: t.creds.projectApiKey, headers: { accept: 'application/json' } });
    const viaApi = await t.request('GET', '/api/prompts', { authToken: t.creds.projectApiKey });
    expect(viaRoot.status).toBe(200);
    expect(viaRoot.headers.get('content-type')).toContain('application/json');
    expect(viaRoot.body).toEqual(viaApi.body);
    // An API client is never answered with the page, whatever it accepts.
    const keyAndHtml = await t.request('GET', '/', { authToken: t.creds.projectApiKey, headers: { accept: 'text/html' } });
    expect(keyAndHtml.headers.get('content-type')).toContain('application/json');
    expect(keyAndHtml.body).toEqual(viaApi.body);
    // No Accept header (curl, SDKs): JSON too, and a missing key is the API's 401, not a page.
    const bare = await t.request('GET', '/');
    expect(bare.status).toBe(401);
    expect(bare.headers.get('content-type')).toContain('application/json');
  });

  it('never answers API, OTLP, health or metrics paths with the page, and app paths only to browsers', async () => {
    for (const url of ['/api/nothing-here', '/api/trace/search', '/v1/traces', '/v1/anything', '/healthz', '/readyz', '/metrics']) {
      const res = await t.request('GET', url, html);
      expect(res.headers.get('content-type'), url).toContain('application/json');
    }
    const api = await t.request('GET', '/p/proj_x/traces');
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toContain('application/json');
  });

  it("a browser navigating to an unknown address gets the app (its not-found page) with 404; programs keep the JSON 404", async () => {
    for (const url of ['/this/does/not/exist', '/nothing', '/p', '/settings/whatever?x=1']) {
      const page = await t.request('GET', url, html);
      expect(page.status, url).toBe(404);
      expect(page.headers.get('content-type'), url).toContain('text/html');
      expect(page.text).toContain('<div id="root">');
      const program = await t.request('GET', url);
      expect(program.status, url).toBe(404);
      expect(program.body, url).toEqual({ error: { type: 'not_found', code: 'route_not_found', message: `no route GET ${url.split('?')[0]}` } });
      // With credentials it is a program, whatever it accepts.
      const keyed = await t.request('GET', url, { authToken: t.creds.projectApiKey, headers: { accept: 'text/html' } });
      expect(keyed.headers.get('content-type'), url).toContain('application/json');
    }
    // Other methods are never pages.
    expect((await t.request('POST', '/this/does/not/exist', html)).headers.get('content-type')).toContain('application/json');
  });

  it('serves hashed assets precompressed, with long immutable caching', async () => {
    const file = fs.readdirSync(path.join(UI_DIR, 'assets')).find((f) => f.endsWith('.js') && fs.existsSync(path.join(UI_DIR, 'assets', `${f}.br`)))!;
    const br = await fetch(`${t.baseUrl}/assets/${file}`, { headers: { 'accept-encoding': 'br' } });
    expect(br.status).toBe(200);
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(br.headers.get('content-type')).toContain('javascript');
    const gz = await fetch(`${t.baseUrl}/assets/${file}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect((await t.request('GET', '/assets/nope.js')).status).toBe(404);
    expect((await t.request('GET', '/assets/../index.html')).status).not.toBe(200);
  });

  it("the first answer draws the app's frame before any script and names everything the entry needs, so nothing waits on anything else", async () => {
    const page = await t.request('GET', '/p/proj_x/traces', html);
    const doc = page.text;
    // The frame: the shell's header (brand) and a status line, styled inline, ahead of the app's root.
    const boot = /<div id="boot"[^>]*>([\s\S]*?)<\/main>\s*<\/div>\s*<div id="root">/.exec(doc);
    expect(boot, 'the frame before #root').not.toBeNull();
    expect(boot![1]).toMatch(/<header>[\s\S]*<svg[\s\S]*Spyglass[\s\S]*<\/header>/);
    expect(boot![1]).toMatch(/role="status">Loading Spyglass/);
    expect(doc).toMatch(/<style>[\s\S]*#boot \{[^}]*position: fixed[\s\S]*<\/style>/);
    // No script may draw it: the scripts are the entry module, deferred by nature, and one inline
    // script that only starts the page's first requests (no DOM), allowed by its hash and nothing else inline.
    const scripts = [...doc.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(2);
    expect(scripts[1][1]).toMatch(/type="module"/);
    const inline = scripts[0][2];
    expect(inline).not.toMatch(/document\.|innerHTML/);
    const hash = `'sha256-${createHash('sha256').update(inline, 'utf8').digest('base64')}'`;
    expect(page.headers.get('content-security-policy')).toMatch(new RegExp(`script-src 'self' ${hash.replace(/[+/]/g, '\\$&')};`));

    // Every module the entry imports statically is preloaded by the answer itself, and served.
    const entry = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"><\/script>/.exec(doc)![1];
    const entryCode = await (await fetch(`${t.baseUrl}${entry}`)).text();
    const imports = [...entryCode.matchAll(/\bimport\s*(?:[^;()"']*?from\s*)?"\.\/([^"]+\.js)"/g)].map((m) => `/assets/${m[1]}`);
    expect(imports.length).toBeGreaterThanOrEqual(3);
    const preloaded = [...doc.matchAll(/<link rel="modulepreload" crossorigin href="([^"]+)">/g)].map((m) => m[1]);
    // The page's own code is preloaded beside it (test/foundation/page-code.test.ts says which).
    for (const file of imports) expect(preloaded, file).toContain(file);
    for (const file of [...preloaded, ...[...doc.matchAll(/<link rel="stylesheet" crossorigin href="([^"]+)">/g)].map((m) => m[1])]) {
      expect((await fetch(`${t.baseUrl}${file}`)).status, file).toBe(200);
    }
    // The session check, which every page makes first, is asked for beside the code (by the inline script).
    expect(inline).toContain('fetch("/api/auth/session"');
  });

  it('the page of a shared trace is noindex, and 404 once the link is withdrawn', async () => {
    const now = Date.now();
    await t.request('POST', '/api/collector', {
      authToken: t.creds.projectApiKey,
      body: { trace_id: 'web-share', spans: [{ span_id: 'a', type: 'llm', timestamps: { started_at: now - 10, finished_at: now } }] },
    });
    const { path: sharePath } = (await t.request('POST', '/api/trace/web-share/share', { authToken: t.creds.projectApiKey })).body;
    const page = await t.request('GET', sharePath, html);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-robots-tag')).toContain('noindex');
    await t.request('POST', '/api/trace/web-share/unshare', { authToken: t.creds.projectApiKey });
    const gone = await t.request('GET', sharePath, html);
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-type')).toContain('text/html');
    expect((await t.request('GET', '/share/not-a-token', html)).status).toBe(404);
  });
});
