import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { LogController, type FastifyInstance } from 'fastify';

/** What a caller's x-request-id may be: short, and nothing that could forge a log line or a header. */
const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;
/** W3C trace context: version-traceid-parentid-flags; the trace id names the request. */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The id of a request: the caller's x-request-id when it is a sane one, else the trace id
 * of its traceparent (so a request is found under the trace its client recorded), else a
 * new UUID.
 */
export function requestIdOf(headers: IncomingHttpHeaders): string {
  const given = first(headers['x-request-id']);
  if (given && REQUEST_ID.test(given)) return given;
  const traceparent = first(headers.traceparent)?.toLowerCase().match(TRACEPARENT);
  if (traceparent && !/^0+$/.test(traceparent[1])) return traceparent[1];
  return randomUUID();
}

/** Fastify's options that make `request.id` the request id and label every request log line with it. */
export function requestIdOptions() {
  return {
    genReqId: (req: { headers: IncomingHttpHeaders }) => requestIdOf(req.headers),
    requestIdHeader: false as const,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
  };
}

/** Every answer (errors included) carries the request id in x-request-id. Install it before any hook that may refuse. */
export function echoRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
}

function first(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s?.trim() || undefined;
}
