/**
 * SIGKILL of a real server (bin/spyglass.mjs) in the middle of a platform run, then a restart
 * on the same data: the run goes on where it was and completes with every row exactly once.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminQuery } from '../support/global-setup.ts';
import { copyTemplateDatabase, databaseKinds, request } from '../support/harness.ts';
import { signalTree, startServer, useTmpDirs, type Running } from '../support/server-process.ts';

const ROWS = 60;

describe.each(databaseKinds)('platform run: SIGKILL mid-run, restart, the run completes (%s)', (kind) => {
  const tmp = useTmpDirs();
  let env: Record<string, string>;
  let dropDb: (() => Promise<void>) | null = null;
  let agent: http.Server;
  let agentUrl = '';
  const calls = new Map<number, number>();

  beforeAll(async () => {
    agent = http.createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const row = JSON.parse(text) as { n: number };
        calls.set(row.n, (calls.get(row.n) ?? 0) + 1);
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ output: `row ${row.n}` })), 100);
      });
    });
    await new Promise<void>((r) => agent.listen(0, '127.0.0.1', r));
    agentUrl = `http://127.0.0.1:${(agent.address() as AddressInfo).port}/`;
    env = { SPYGLASS_DATA_DIR: tmp(), LOG_LEVEL: 'warn' };
    if (kind === 'postgres') {
      const copy = await copyTemplateDatabase();
      env.DATABASE_URL = copy.url;
      dropDb = copy.drop;
    }
  });
  afterAll(async () => {
    agent?.closeAllConnections();
    await new Promise((r) => agent?.close(r));
    await dropDb?.();
  });

  it('every row once, none lost', async () => {
    let server: Running = await startServer(env);
    const creds = JSON.parse(fs.readFileSync(path.join(env.SPYGLASS_DATA_DIR, 'initial-credentials.json'), 'utf8'));
    const key: string = creds.projectApiKey;
    const api = (method: string, url: string, body?: unknown) => request(server.baseUrl, method, url, { token: key, body });

    const def = await api('PUT', '/api/experiments/crash-run/definition', { targets: [{ id: 'agent', type: 'http', url: agentUrl }], concurrency: 4 });
    expect(def.status, def.text).toBe(200);
    const start = await api('POST', '/api/experiments/crash-run/run', { data: Array.from({ length: ROWS }, (_, n) => ({ n })) });
    expect(start.status, start.text).toBe(200);
    const runId: string = start.body.runId;
    const status = () => api('GET', `/api/experiments/runs/${runId}?experimentSlug=crash-run`);

    for (const deadline = Date.now() + 60_000; ; ) {
      if ((await status()).body.progress >= 10) break;
      if (Date.now() > deadline) throw new Error('the run made no progress before the kill');
      await new Promise((r) => setTimeout(r, 50));
    }
    signalTree(server.child.pid!, 'SIGKILL');
    await server.exited;
    const callsAtKill = [...calls.values()].reduce((a, b) => a + b, 0);
    expect(callsAtKill).toBeLessThan(ROWS);

    // PostgreSQL: the killed process's claim lapses with its lease (30 s); the test ends it now.
    if (env.DATABASE_URL) await adminQuery(env.DATABASE_URL, `UPDATE jobs SET locked_until = 0 WHERE locked_until IS NOT NULL AND failed_at IS NULL`);
    server = await startServer(env);
    let last: { status: string; progress: number; total: number } = { status: 'running', progress: 0, total: ROWS };
    for (const deadline = Date.now() + 90_000; last.status === 'running'; ) {
      if (Date.now() > deadline) throw new Error(`the run did not complete after the restart: ${JSON.stringify(last)}`);
      await new Promise((r) => setTimeout(r, 200));
      last = (await status()).body;
    }
    expect(last).toMatchObject({ status: 'completed', progress: ROWS, total: ROWS });
    const results = await api('GET', `/api/experiments/runs/${runId}/results?experimentSlug=crash-run`);
    const rows = results.body.dataset as { index: number; predicted: { output: string }; error: string | null }[];
    expect(rows.map((r) => r.index)).toEqual(Array.from({ length: ROWS }, (_, n) => n));
    for (const r of rows) expect(r).toMatchObject({ predicted: { output: `row ${r.index}` }, error: null });
    // Only cells in flight at the kill were called again (being called, or called and being
    // stored: at most twice the concurrency of 4); every other row was called once.
    const twice = [...calls.entries()].filter(([, c]) => c > 1).map(([n]) => n);
    expect(twice.length).toBeLessThanOrEqual(8);
    expect(calls.size).toBe(ROWS);
    signalTree(server.child.pid!, 'SIGTERM');
    await server.exited;
  }, 300_000);
});
