import type { FastifyInstance } from 'fastify';
import { AppError } from './errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route stores U+0000 and lone surrogates in its body safely itself (trace ingestion
     * replaces them, the agent cache encrypts values).
     */
    acceptsNulInBody?: boolean;
  }
}

/**
 * PostgreSQL text and jsonb cannot hold U+0000, and jsonb refuses a lone UTF-16 surrogate
 * (JSON.stringify writes one as the escape \ud800): either anywhere in a request would fail its
 * statement with a 500. Every route refuses it up front instead, 400 naming the field: path
 * and query parameters when the request arrives (install this before the credential check,
 * which reads a path parameter on some routes), the body once parsed unless the route
 * declares `config.acceptsNulInBody`.
 */
export function installNulGuard(app: FastifyInstance): void {
  // Callback-style hooks (nothing to wait for): Fastify answers a throw from either as it would a rejection.
  app.addHook('onRequest', (req, _reply, done) => {
    for (const where of ['params', 'query'] as const) refuseNul(req[where], where);
    done();
  });
  app.addHook('preValidation', (req, _reply, done) => {
    if (!req.routeOptions.config?.acceptsNulInBody) refuseNul(req.body, 'body');
    done();
  });
}

function refuseNul(value: unknown, where: string): void {
  const found = findUnstorable(value, where);
  if (!found) return;
  const what = found.character === 'nul' ? 'the NUL character (U+0000)' : 'a lone UTF-16 surrogate (not a character: invalid Unicode)';
  throw new AppError(400, 'invalid_character', `${found.field}: ${what} is not accepted`, { field: found.field });
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function unstorable(s: string): 'nul' | 'surrogate' | null {
  if (s.includes('\u0000')) return 'nul';
  return LONE_SURROGATE.test(s) ? 'surrogate' : null;
}

/**
 * The path (`body.messages.0.content`) of the first string or key in parsed JSON holding a
 * character PostgreSQL cannot store, and which character it is; null when there is none.
 */
export function findUnstorable(value: unknown, root: string): { field: string; character: 'nul' | 'surrogate' } | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const character = unstorable(v);
      if (character) return { field: path, character };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}.${i}`]);
    } else if (v !== null && typeof v === 'object' && isPlainObject(v)) {
      const entries = Object.entries(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i];
        const character = unstorable(k);
        if (character) return { field: `${path}.${JSON.stringify(k).slice(1, -1)}`, character };
        stack.push([child, `${path}.${k}`]);
      }
    }
  }
  return null;
}

/**
 * Records and arrays of parsed input, not Buffers or class instances. The router builds
 * path parameters as instances of a prototype-less class (`NullObject`), whose prototype's
 * prototype is null: those count too, or a NUL in a path parameter would reach the database.
 */
function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as object | null;
  return proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null;
}
