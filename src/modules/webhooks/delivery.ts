import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { checkHost, DestinationError, guardedLookup, hostOf } from './destination.ts';
import { MAX_RESPONSE_BYTES } from './retry.ts';

export interface DeliveryRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** false: every address the connection may use is checked (SSRF, DNS rebinding). */
  allowPrivateDestinations: boolean;
  /** Aborts the attempt (server shutting down). */
  signal?: AbortSignal;
}

export interface DeliveryResult {
  /** The receiver's HTTP status; null when no response arrived. */
  status: number | null;
  latencyMs: number;
  /** Null on 2xx; otherwise what went wrong, for the attempt log. */
  error: string | null;
  /** Why no response arrived: decides whether to retry. */
  failure: 'timeout' | 'network' | 'refused_destination' | 'aborted' | null;
  headers: http.IncomingHttpHeaders;
}

const USER_AGENT = 'Spyglass-Webhooks/1';
const SNIPPET_CHARS = 200;

/**
 * One POST to a receiver, over node:http rather than fetch so the DNS answer used for the
 * connection is the one checked (a custom lookup), redirects are never followed, and the
 * body read stops at 64 KiB. Never throws: every outcome is a result to log.
 */
export async function deliver(request: DeliveryRequest): Promise<DeliveryResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const fail = (failure: NonNullable<DeliveryResult['failure']>, error: string): DeliveryResult => ({
    status: null,
    latencyMs: elapsed(),
    error,
    failure,
    headers: {},
  });

  const url = new URL(request.url);
  if (!request.allowPrivateDestinations) {
    // Checked here (IP literals never reach a lookup) and again by guardedLookup for the very addresses the socket uses.
    try {
      await checkHost(hostOf(url));
    } catch (err) {
      if (err instanceof DestinationError && !err.transient) return fail('refused_destination', `refused: ${err.message}`);
      return fail('network', `network error: ${(err as Error).message}`);
    }
  }

  return new Promise<DeliveryResult>((resolve) => {
    let settled = false;
    const finish = (result: DeliveryResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(request.body)),
        'user-agent': USER_AGENT,
        ...request.headers,
      },
      // A fresh connection per attempt: no socket outlives the address check it passed.
      agent: false,
      ...(request.allowPrivateDestinations ? {} : { lookup: guardedLookup }),
    });

    const timer = setTimeout(() => {
      finish(fail('timeout', `timeout: no complete response within ${request.timeoutMs / 1000} s`));
      req.destroy();
    }, request.timeoutMs);
    const onAbort = () => {
      finish(fail('aborted', 'aborted: the server shut down during the attempt'));
      req.destroy();
    };
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener('abort', onAbort);

    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EDESTINATION') finish(fail('refused_destination', `refused: ${err.message}`));
      else finish(fail('network', `network error: ${err.code ? `${err.code} ` : ''}${err.message}`.trim()));
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let bytes = 0;
      const done = () => {
        const body = Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8');
        finish({ status, latencyMs: elapsed(), error: statusError(status, res, body), failure: null, headers: res.headers });
      };
      res.on('data', (chunk: Buffer) => {
        if (bytes >= MAX_RESPONSE_BYTES) return;
        chunks.push(chunk);
        bytes += chunk.length;
        if (bytes >= MAX_RESPONSE_BYTES) {
          // Enough read: the status is what counts; a receiver streaming forever is cut off.
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', done);
      res.on('close', done);
    });
    req.end(request.body);
  });
}

function statusError(status: number, res: http.IncomingMessage, body: string): string | null {
  if (status >= 200 && status < 300) return null;
  const reason = res.statusMessage ? ` ${res.statusMessage}` : '';
  if (status >= 300 && status < 400) {
    const location = res.headers.location ? ` to ${res.headers.location}` : '';
    return `HTTP ${status}${reason}: redirect${location} not followed`;
  }
  const snippet = body.replace(/\s+/g, ' ').trim().slice(0, SNIPPET_CHARS);
  return `HTTP ${status}${reason}${snippet ? `: ${snippet}` : ''}`;
}
