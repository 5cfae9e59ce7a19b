import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface Received {
  headers: Record<string, string>;
  body: string;
  json: { batch: { id: string; type: string; schema_version: string; timestamp: string; data: Record<string, unknown> }[] };
}

export type Reply =
  | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number }
  /** Never answers (the sender must give up). */
  | 'hang'
  /** Streams this many bytes of body after a 200 status, slowly enough to notice a reader that does not stop. */
  | { stream: number };

/** A loopback webhook receiver: records every request and answers as `reply` says. */
export class Receiver {
  readonly received: Received[] = [];
  /** Bytes of each streamed body written before the reader hung up. */
  readonly streamed: number[] = [];
  reply: (request: Received, index: number) => Reply = () => ({ status: 200, body: 'ok' });
  private server: http.Server;
  private sockets = new Set<import('node:net').Socket>();
  url = '';

  private constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
        let json: Received['json'];
        try {
          json = JSON.parse(body);
        } catch {
          json = { batch: [] };
        }
        const received: Received = { headers, body, json };
        this.received.push(received);
        const reply = this.reply(received, this.received.length - 1);
        if (reply === 'hang') return;
        if ('stream' in reply) {
          res.writeHead(200, { 'content-type': 'text/plain' });
          let sent = 0;
          const chunk = Buffer.alloc(16 * 1024, 'x');
          res.on('close', () => this.streamed.push(sent));
          const push = () => {
            if (sent >= reply.stream || res.destroyed) return res.end();
            sent += chunk.length;
            res.write(chunk, (err) => (err ? undefined : setImmediate(push)));
          };
          push();
          return;
        }
        setTimeout(() => {
          res.writeHead(reply.status, { 'content-type': 'text/plain', ...(reply.headers ?? {}) });
          res.end(reply.body ?? '');
        }, reply.delayMs ?? 0);
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  static async start(path = '/hook'): Promise<Receiver> {
    const r = new Receiver();
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}${path}`;
    return r;
  }

  /** Every event received, in arrival order. */
  events() {
    return this.received.flatMap((r) => r.json.batch);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
