import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PAGED_STREAM_SOURCING } from '../paged-stream.ts';
import type { ReadPriority } from '../read-priority.ts';

/**
 * Read requests in progress hold ingest transactions back: fewer and shorter ones, and on
 * PGlite later ones (up to a bound). A streamed answer (a trace download) counts only while
 * it reads from the database: a client that takes its bytes slowly holds nothing back.
 */
export function installReadPriority(http: FastifyInstance, readPriority: ReadPriority): void {
  /** Requests counted, and whether each is counted as reading now. */
  const counted = new WeakMap<FastifyRequest, boolean>();
  const setReading = (req: FastifyRequest, reading: boolean) => {
    const was = counted.get(req);
    if (was === undefined || was === reading) return;
    counted.set(req, reading);
    if (reading) readPriority.enter();
    else readPriority.leave();
  };
  http.addHook('onRequest', (req, _reply, done) => {
    if (!(req.routeOptions.config?.ingest || req.url === '/healthz' || req.url === '/readyz')) {
      counted.set(req, true);
      readPriority.enter();
    }
    done();
  });
  http.addHook('onSend', (req, _reply, payload, done) => {
    if (counted.has(req) && payload instanceof Readable) payload.on(PAGED_STREAM_SOURCING, (sourcing: boolean) => setReading(req, sourcing));
    done(null, payload);
  });
  const leave = (req: FastifyRequest) => {
    setReading(req, false);
    counted.delete(req);
  };
  http.addHook('onResponse', (req, _reply, done) => {
    leave(req);
    done();
  });
  http.addHook('onRequestAbort', (req, done) => {
    leave(req);
    done();
  });
}
