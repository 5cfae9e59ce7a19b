import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseLsn, readContext, type ReadContext, type Reads } from '../../db/replicas.ts';
import { badRequest } from '../errors.ts';

/** The header that carries a client's last write (a WAL position) to the next request, whichever process answers it. */
export const READ_AFTER_HEADER = 'x-spyglass-read-after';

const contexts = new WeakMap<FastifyRequest, ReadContext>();

/**
 * Read-your-writes with read replicas: each request runs with a read context. A request that
 * wrote answers the primary's WAL position in X-Spyglass-Read-After, and this process
 * remembers it for the client (API key or session); a request carrying the header, or from a
 * client that wrote recently, reads from a replica only once it has replayed past it
 * (db/replicas.ts). Register before the auth hook, so that everything after it runs inside.
 */
export function installReadAfter(app: FastifyInstance, reads: Reads): void {
  // Without replicas every read is the primary's: the header is still checked, but no request
  // (ingest among them) pays for a read context it would never use.
  const replicated = reads.status().length > 0;
  app.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers[READ_AFTER_HEADER];
    const text = Array.isArray(header) ? header[0] : header;
    let after: bigint | null = null;
    if (text !== undefined && text.trim() !== '') {
      after = parseLsn(text);
      if (after === null) {
        done(badRequest('invalid_read_after', 'X-Spyglass-Read-After: must be a WAL position as answered by an earlier request (e.g. 0/16B3748)', 'X-Spyglass-Read-After'));
        return;
      }
    }
    if (!replicated) {
      done();
      return;
    }
    const ctx: ReadContext = { client: null, after, wrote: false };
    contexts.set(request, ctx);
    readContext.run(ctx, done);
  });
  if (!replicated) return;
  app.addHook('preHandler', (request, _reply, done) => {
    const ctx = contexts.get(request);
    if (ctx && request.principal) ctx.client = request.principal.keyId;
    done();
  });
  app.addHook('onSend', async (request, reply) => {
    const ctx = contexts.get(request);
    if (!ctx?.wrote || reply.statusCode >= 400) return;
    const lsn = await reads.primaryPosition().catch(() => null);
    if (lsn === null) return;
    void reply.header(READ_AFTER_HEADER, lsn);
    if (ctx.client) reads.wrote(ctx.client, lsn);
  });
}
