import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { appDatabaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';
import { idleReads, readsInProgress } from '../support/reads-gauge.ts';

/**
 * Answers of 1 KiB or more are compressed when the client accepts it (src/platform/compression.ts).
 * Read with http.request, which, unlike fetch, shows the bytes on the wire and sends only
 * the Accept-Encoding a test gives it.
 */
const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
const T0 = clock.now().getTime() - 3_600_000;
const SPANS = 1_600;
/**
 * ~1.6 KiB of random text per span: it does not compress much, so each of the detail's four
 * pages of 500 spans (~0.9 MiB, ~0.7 MiB compressed) is still more than a Unix socket's
 * buffers (~200 KiB here) and zlib's hold: a client that stops reading stops the download
 * within its first pages, with pages still unread. (8 KiB a span, 12 MiB a download, cost this
 * file about twice the CPU for the same behaviour: 52.6 against 28.0 s.)
 */
const fillers = Array.from({ length: SPANS }, () => randomBytes(1_200).toString('base64'));

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came over the wire. */
  body: Buffer;
}

function rawRequest(t: TestApp, method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${t.baseUrl}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function decode(answer: RawAnswer): string {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'gzip') return zlib.gunzipSync(answer.body).toString('utf8');
  if (encoding === 'br') return zlib.brotliDecompressSync(answer.body).toString('utf8');
  if (encoding === undefined) return answer.body.toString('utf8');
  throw new Error(`unexpected content-encoding ${encoding}`);
}

describe.each(appDatabaseKinds)('compressed answers (%s)', (kind) => {
  let t: TestApp;
  let auth: Record<string, string>;
  let sharePath: string;
  const send = async (traceId: string, spans: object[]) => {
    const res = await t.request('POST', '/api/collector', { token: t.creds.projectApiKey, body: { trace_id: traceId, spans } });
    expect(res.status).toBe(200);
  };
  const span = (i: number, input: string) => ({
    span_id: `s${String(i).padStart(5, '0')}`,
    parent_id: i === 0 ? undefined : 's00000',
    type: 'llm',
    name: `step ${i}`,
    model: 'gpt-4o-mini',
    input: { type: 'text', value: input },
    output: { type: 'text', value: `answer ${i}` },
    timestamps: { started_at: T0 + i, finished_at: T0 + i + 500 },
  });

  beforeAll(async () => {
    t = await startApp(kind, { clock });
    auth = { authorization: `Bearer ${t.creds.projectApiKey}` };
    for (let first = 0; first < SPANS; first += 200) {
      await send('big', Array.from({ length: 200 }, (_, j) => span(first + j, fillers[first + j])));
    }
    for (let i = 0; i < 30; i++) await send(`small-${i}`, [span(0, `question ${i}`), span(1, `lookup ${i}`)]);
    sharePath = ((await t.request('POST', '/api/trace/big/share', { token: t.creds.projectApiKey })).body as { path: string }).path;
  }, 240_000);
  afterAll(() => t?.close());

  const search = JSON.stringify({ pageSize: 50 });

  it('a large JSON answer is compressed with the encoding the client prefers, brotli on a tie, and decodes to the identity bytes', async () => {
    const identity = await rawRequest(t, 'POST', '/api/trace/search', auth, search);
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.length).toBeGreaterThan(4_096);
    for (const [accept, expected] of [
      ['gzip', 'gzip'],
      ['br', 'br'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
      ['*', 'gzip'],
    ] as const) {
      const answer = await rawRequest(t, 'POST', '/api/trace/search', { ...auth, 'accept-encoding': accept }, search);
      expect(answer.status, accept).toBe(200);
      expect(answer.headers['content-encoding'], accept).toBe(expected);
      expect(answer.headers.vary, accept).toMatch(/accept-encoding/i);
      expect(answer.headers['content-type']).toBe(identity.headers['content-type']);
      expect(Number(answer.headers['content-length'] ?? answer.body.length), accept).toBe(answer.body.length);
      expect(answer.body.length, accept).toBeLessThan(identity.body.length / 3);
      expect(decode(answer), accept).toBe(identity.body.toString('utf8'));
    }
    // No Accept-Encoding, identity only, or nothing this server knows: today's bytes exactly.
    for (const accept of ['identity', 'gzip;q=0, br;q=0', 'compress']) {
      const answer = await rawRequest(t, 'POST', '/api/trace/search', { ...auth, 'accept-encoding': accept }, search);
      expect(answer.headers['content-encoding'], accept).toBeUndefined();
      expect(answer.body.equals(identity.body), accept).toBe(true);
    }
  });

  it('a small answer, a small error and a HEAD are not compressed; the large GET beside them is', async () => {
    const gzipOrBr = { 'accept-encoding': 'gzip, br' };
    const openapi = await rawRequest(t, 'GET', '/api/openapi.json', {});
    expect(openapi.body.length).toBeGreaterThan(10_000);
    expect((await rawRequest(t, 'GET', '/api/openapi.json', gzipOrBr)).headers['content-encoding']).toBe('br');
    const head = await rawRequest(t, 'HEAD', '/api/openapi.json', gzipOrBr);
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.headers['content-length']).toBe(String(openapi.body.length));
    const health = await rawRequest(t, 'GET', '/healthz', gzipOrBr);
    expect(health.headers['content-encoding']).toBeUndefined();
    expect(health.body.toString()).toBe('{"status":"ok"}');
    const missing = await rawRequest(t, 'GET', '/api/trace/nope', { ...auth, ...gzipOrBr });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(missing.body.toString())).toEqual({ error: 'trace_not_found', message: 'no trace nope in this project' });
  });

  it('the streamed trace detail, its outline and the shared trace are compressed whole and intact', async () => {
    for (const path of ['/api/trace/big', '/api/trace/big/outline', `/api/share/${sharePath.split('/').pop()}`]) {
      const identity = await rawRequest(t, 'GET', path, auth);
      expect(identity.status, path).toBe(200);
      expect(identity.headers['content-encoding'], path).toBeUndefined();
      for (const encoding of ['gzip', 'br']) {
        const answer = await rawRequest(t, 'GET', path, { ...auth, 'accept-encoding': encoding });
        expect(answer.status, path).toBe(200);
        expect(answer.headers['content-encoding'], path).toBe(encoding);
        expect(answer.headers.vary, path).toMatch(/accept-encoding/i);
        // Streamed: the length is not known when the answer starts.
        expect(answer.headers['transfer-encoding'], path).toBe('chunked');
        expect(decode(answer), `${path} ${encoding}`).toBe(identity.body.toString('utf8'));
      }
    }
    const outline = JSON.parse(decode(await rawRequest(t, 'GET', '/api/trace/big/outline', { ...auth, 'accept-encoding': 'br' })));
    expect(outline.spans).toHaveLength(SPANS);
  }, 60_000);

  /** Trace detail cursors open (PGlite) or pooled connections in use (PostgreSQL). */
  const held = async () => {
    if (t.db.pool) return t.db.pool.totalCount - t.db.pool.idleCount;
    const [{ n }] = await rows<{ n: number }>(t.db.orm, sql`SELECT count(*)::int AS n FROM pg_cursors WHERE name LIKE 'trace\_spans\_%'`);
    return Number(n);
  };
  // Up to 30 s: quiet, the buffers fill within a second; in the whole suite, beside a browser
  // test on two cores, a 12 MB download has been seen to take more than 5 s to get there.
  const waitFor = async (check: () => Promise<boolean>) => {
    const until = Date.now() + 30_000;
    while (!(await check()) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    return check();
  };

  // Over TCP the kernel's receive buffer grows with use (up to net.ipv4.tcp_rmem's 32 MiB on
  // this machine), and the CI machine once took the whole compressed answer into it, so the
  // server rightly finished reading. A Unix socket's buffers do not grow (~200 KiB): the
  // server's own backpressure is what is left to see. The same HTTP server takes its connections.
  let unixPath: string;
  let unixServer: net.Server;
  beforeAll(async () => {
    unixPath = path.join(os.tmpdir(), `spyglass-compression-${process.pid}-${kind}.sock`);
    unixServer = net.createServer((socket) => t.app.http.server.emit('connection', socket));
    await new Promise<void>((resolve) => unixServer.listen(unixPath, resolve));
  });
  afterAll(() => new Promise<void>((resolve) => unixServer.close(() => resolve())));

  it.each(['gzip', 'br'])('a %s download starts before its source is read whole, and when the client stops reading it holds back: the database is no longer read, the cursor stays open, the rest comes when read', async (encoding) => {
    const idle = await idleReads(t);
    const started = performance.now();
    const { res, first } = await new Promise<{ res: http.IncomingMessage; first: Buffer }>((resolve, reject) => {
      http
        .get({ socketPath: unixPath, agent: false, path: '/api/trace/big', headers: { ...auth, 'accept-encoding': encoding } }, (res) => {
          res.once('data', (chunk: Buffer) => {
            res.pause();
            resolve({ res, first: chunk });
          });
        })
        .on('error', reject);
    });
    expect(res.headers['content-encoding']).toBe(encoding);
    // The client reads nothing more: once the socket's and zlib's buffers are full the
    // server stops reading pages and the download stops counting as a read; the answer is
    // not whole yet, so its cursor is still open.
    expect(await waitFor(async () => (await readsInProgress(t)) <= idle)).toBe(true);
    const heldNow = await held();
    // On PostgreSQL a client that holds a pooled connection this long is no longer waited
    // for (src/modules/traces/reads.ts, 10 s): the rest is buffered and the connection goes
    // back. On a loaded machine the buffers can take that long to fill.
    // Then it holds one connection or, past the deadline, none.
    if (kind === 'postgres' && performance.now() - started > 9_000) expect([0, 1]).toContain(heldNow);
    else expect(heldNow).toBe(1);
    const chunks: Buffer[] = [first];
    await new Promise<void>((resolve, reject) => {
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', resolve);
      res.on('error', reject);
      res.resume();
    });
    const detail = JSON.parse(decode({ status: 200, headers: res.headers, body: Buffer.concat(chunks) }));
    expect(detail.spans).toHaveLength(SPANS);
    expect(detail.spans[SPANS - 1].input).toEqual({ type: 'text', value: fillers[SPANS - 1] });
    expect(await waitFor(async () => (await held()) === 0)).toBe(true);
    expect(await readsInProgress(t)).toBeLessThanOrEqual(idle);
  }, 120_000);

  it('compressed downloads abandoned midway release their cursors and connections', async () => {
    const abandon = () =>
      new Promise<string | undefined>((resolve, reject) => {
        // Over the Unix socket, whose buffers do not grow: the client goes away with pages unread.
        const req = http.get({ socketPath: unixPath, agent: false, path: '/api/trace/big', headers: { ...auth, 'accept-encoding': 'br' } }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve(res.headers['content-encoding']);
          });
        });
        req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      });
    expect(await Promise.all(Array.from({ length: 12 }, abandon))).toEqual(Array(12).fill('br'));
    expect(await waitFor(async () => (await held()) === 0)).toBe(true);
    const whole = await rawRequest(t, 'GET', '/api/trace/big', { ...auth, 'accept-encoding': 'br' });
    expect(JSON.parse(decode(whole)).spans).toHaveLength(SPANS);
  }, 120_000);
});
