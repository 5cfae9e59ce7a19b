import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import helmet from '@fastify/helmet';
import { PACKAGE_DIR } from './package-dir.ts';
import { pageCodeLinks } from './page-code.ts';

/** Where `npm run build:ui` (the `prepare` script) writes the app. */
export const UI_DIR = path.join(PACKAGE_DIR, 'dist', 'ui');

/**
 * Paths of the app's pages. A browser's navigation to one gets the app (history
 * fallback); the app's router draws the page. None of them is under /api, /v1, /healthz,
 * /readyz or /metrics, so no API client is ever answered with HTML.
 */
export const PAGE_ROUTES = ['/', '/signin', '/authorize', '/invite/:token', '/reset-password/:token', '/p/*', '/share/:token'] as const;

/**
 * Any other path a browser navigates to: the app, which draws its "not found" page, with
 * status 404. Programs (no `Accept: text/html` first, or with credentials) keep the JSON 404
 * of the not-found handler, and so does every browser under the API's own prefixes.
 */
export const NOT_FOUND_PAGE_ROUTE = '/*';
const API_PREFIXES = ['/api/', '/api?', '/v1/', '/healthz', '/readyz', '/metrics'];

/** Every route this file adds: pages and assets, not API (the OpenAPI document leaves them out). */
export const WEB_ROUTES: readonly string[] = [...PAGE_ROUTES, '/assets/*', NOT_FOUND_PAGE_ROUTE];

export interface WebAppOptions {
  /** Whether a share token shows a trace: the page of a withdrawn link (or of a trace not arrived yet) answers 404. */
  shareShowsTrace(token: string): Promise<boolean>;
  uiDir?: string;
}

/** The quality an Accept header gives a media type: that of its most specific matching range (RFC 9110 12.5.1), 0 when none matches. */
function acceptQuality(accept: string, mediaType: string): number {
  const [type, subtype] = mediaType.split('/');
  let best = { specificity: -1, q: 0 };
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const [rangeType, rangeSubtype] = range.split('/');
    const specificity = rangeType === type && rangeSubtype === subtype ? 2 : rangeType === type && rangeSubtype === '*' ? 1 : range === '*/*' ? 0 : -1;
    if (specificity <= best.specificity) continue;
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    best = { specificity, q: Number.isFinite(q) ? q : 0 };
  }
  return best.q;
}

/**
 * A browser's navigation: it prefers HTML to JSON (a browser lists text/html at q=1 and any
 * other type at q=0.8 at most; curl, SDKs and fetch send no Accept, any type alike, or JSON)
 * and carries no API credentials (a browser never sends Authorization or X-Auth-Token when
 * following a link). Only these reach the pages; every other client of a page path that is
 * also API (`/`, `/share/<token>`) gets the JSON.
 */
const isNavigation = (req: { headers: Record<string, string | string[] | undefined> }) => {
  const accept = req.headers.accept;
  if (typeof accept !== 'string' || req.headers.authorization || req.headers['x-auth-token']) return false;
  const html = acceptQuality(accept, 'text/html');
  return html > 0 && html > acceptQuality(accept, 'application/json');
};

/**
 * Serves the built single-page app: hashed assets with long immutable caching and their
 * gzip/brotli twins made at build time; index.html (never cached) to browser navigations
 * of the app's pages, with security headers. `GET /` without `Accept: text/html` keeps
 * answering the prompts list.
 */
export async function installWebApp(app: FastifyInstance, options: WebAppOptions): Promise<void> {
  const uiDir = options.uiDir ?? UI_DIR;
  const indexFile = path.join(uiDir, 'index.html');
  const built = fs.existsSync(indexFile);
  const indexHtml = built ? fs.readFileSync(indexFile, 'utf8') : null;
  const codeOf = built ? pageCodeLinks(uiDir) : null;
  // index.html's own inline scripts (the page's first requests) run, allowed by their hashes; no other inline script does.
  const inlineScripts = [...(indexHtml ?? '').matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    (m) => `'sha256-${crypto.createHash('sha256').update(m[1], 'utf8').digest('base64')}'`,
  );
  // The page's own code named in the first answer, so it loads beside the entry (src/page-code.ts).
  const pageHtml = (pagePath: string) => {
    const links = codeOf?.(pagePath);
    return links ? indexHtml!.replace('</head>', `${links}</head>`) : indexHtml!;
  };

  app.addConstraintStrategy({
    name: 'page',
    storage() {
      const handlers = new Map<string, unknown>();
      return {
        get: (value: string) => (handlers.get(value) ?? null) as never,
        set: (value: string, store: unknown) => void handlers.set(value, store),
      };
    },
    deriveConstraint: (req: FastifyRequest['raw']) => (isNavigation(req) ? 'html' : 'other'),
    mustMatchWhenDerived: false,
  });

  await app.register(async (web) => {
    await web.register(helmet, {
      global: false,
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'", ...inlineScripts],
          // Mantine and CodeMirror set styles at run time (style elements and attributes).
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
        },
      },
      referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
      frameguard: { action: 'deny' }, // as frame-ancestors 'none', for browsers without CSP level 2
      // Served over plain http on a laptop as often as behind TLS: HSTS is the proxy's call.
      strictTransportSecurity: false,
      crossOriginEmbedderPolicy: false,
    });
    await web.register(fastifyStatic, { root: uiDir, serve: false, preCompressed: true });

    web.get(
      '/assets/*',
      { config: { auth: { scope: 'public' } }, schema: { hide: true } },
      (req: FastifyRequest<{ Params: { '*': string } }>, reply) => {
        void reply.header('x-content-type-options', 'nosniff');
        // Names carry a content hash: a new build never reuses one.
        return reply.sendFile(req.params['*'], path.join(uiDir, 'assets'), { immutable: true, maxAge: '365d' });
      },
    );

    const sendPage = async (reply: FastifyReply, status = 200, pagePath = '') => {
      reply.helmet();
      void reply.header('cache-control', 'no-cache').header('vary', 'accept').type('text/html; charset=utf-8').status(status);
      if (!indexHtml) {
        return reply
          .status(503)
          .send('<!doctype html><title>Spyglass</title><p>The web app is not built. Run <code>npm run build:ui</code> and restart.</p>');
      }
      return reply.send(status === 200 ? pageHtml(pagePath) : indexHtml);
    };

    for (const url of PAGE_ROUTES) {
      web.route({
        method: 'GET',
        url,
        constraints: { page: 'html' },
        config: { auth: { scope: 'public' } },
        schema: { hide: true },
        handler: async (req: FastifyRequest<{ Params: { token?: string } }>, reply) => {
          if (url === '/share/:token') {
            void reply.header('x-robots-tag', 'noindex, nofollow');
            const live = await options.shareShowsTrace(req.params.token ?? '');
            return sendPage(reply, live ? 200 : 404);
          }
          return sendPage(reply, 200, req.url.split('?')[0]);
        },
      });
    }

    // Unknown paths: the router tries every other route first (a wildcard at the root ranks last).
    web.route({
      method: 'GET',
      url: NOT_FOUND_PAGE_ROUTE,
      constraints: { page: 'html' },
      config: { auth: { scope: 'public' } },
      schema: { hide: true },
      handler: async (req, reply) => {
        const url = req.url;
        if (url === '/api' || API_PREFIXES.some((p) => url.startsWith(p))) return reply.callNotFound();
        return sendPage(reply, 404);
      },
    });
  });
}
