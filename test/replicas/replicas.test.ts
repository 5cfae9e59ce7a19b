import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, openTestDatabase, request, startApp } from '../support/harness.ts';
import { makeReplica, type Replica } from '../support/replica.ts';
import { runCli, signalTree, startServer, useTmpDirs, type Running } from '../support/server-process.ts';
import { simpleTrace } from '../support/sample-traces.ts';

/**
 * Read replicas (docs/operating.md, "Read replicas"): two server processes on one PostgreSQL
 * and one streaming replica of it, made here with pg_basebackup. Searches and trace reads go
 * to the replica; a client reads its own writes; a replica that lags or is stopped is skipped.
 */
describe.skipIf(!databaseKinds.includes('postgres'))('read replicas', () => {
  const tmp = useTmpDirs();
  let replica: Replica;
  let servers: Running[] = [];
  let drop: () => Promise<void>;
  let replicaUrl: string;
  let primaryUrl: string;
  let projectId: string;
  const projectKey = `sgp-${alnum(16)}_${alnum(48)}`;
  const adminKey = `sg-${alnum(16)}_${alnum(48)}`;
  /** The project key writes; the organization key only reads (another client). */
  const writer = { authToken: projectKey };
  const reader = () => ({ token: adminKey, projectId });
  const MAX_LAG_MS = 3_000;

  beforeAll(async () => {
    const database = await openTestDatabase('postgres');
    drop = database.drop;
    primaryUrl = database.url!;
    // After the copy is made: the base backup holds it.
    replica = await makeReplica(database.url!);
    replicaUrl = replica.urlFor(database.url!);
    const shared = {
      DATABASE_URL: database.url!,
      DATABASE_READ_URL: replicaUrl,
      SPYGLASS_READ_MAX_LAG_MS: String(MAX_LAG_MS),
      SPYGLASS_TOKEN_HASH_KEY: randomBytes(32).toString('base64'),
      SPYGLASS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SPYGLASS_INIT_PROJECT_API_KEY: projectKey,
      SPYGLASS_INIT_ADMIN_API_KEY: adminKey,
      SPYGLASS_METRICS_PUBLIC: '1',
      SPYGLASS_WEBHOOK_POLL_MS: '0',
      LOG_LEVEL: 'warn',
    };
    const first = tmp();
    servers.push(await startServer({ ...shared, SPYGLASS_DATA_DIR: first }));
    servers.push(await startServer({ ...shared, SPYGLASS_DATA_DIR: tmp() }));
    projectId = JSON.parse(fs.readFileSync(path.join(first, 'initial-credentials.json'), 'utf8')).project.id;
    // Each key's first request records when it was last used (a write): done here, before the tests count.
    for (const s of servers) {
      expect((await search(s, writer, 'warm-up')).status).toBe(200);
      expect((await search(s, reader(), 'warm-up')).status).toBe(200);
    }
    for (const s of servers) await replicaState(s, (r) => r.ok && r.lagMs === 0);
  }, 240_000);

  afterAll(async () => {
    for (const s of servers) signalTree(s.child.pid!, 'SIGTERM');
    await Promise.all(servers.map((s) => s.exited));
    servers = [];
    replica?.remove();
    await drop?.();
  }, 60_000);

  const search = (server: Running, who: Parameters<typeof request>[3], query: string, headers: Record<string, string> = {}) =>
    request(server.baseUrl, 'POST', '/api/traces/search', { ...who, headers, body: { query, pageSize: 10 } });

  /** Waits until the server's readiness detail shows the replica as `wanted` says (checks run once a second). */
  async function replicaState(server: Running, wanted: (r: { ok: boolean; lagMs: number | null; name: string; detail: string }) => boolean, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < deadline) {
      const ready = await request(server.baseUrl, 'GET', '/readyz');
      const [r] = ready.body.checks.readReplicas;
      last = r;
      if (r && wanted(r)) return r as { ok: boolean; lagMs: number | null; name: string; detail: string };
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`the replica never reached the state wanted; last: ${JSON.stringify(last)}`);
  }

  async function metric(server: Running, name: string, labels: string): Promise<number | null> {
    const text = (await request(server.baseUrl, 'GET', '/metrics')).text;
    const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
    return line ? Number(line.split(' ').pop()) : null;
  }

  async function onPrimary<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: primaryUrl });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }

  async function onReplica<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: replicaUrl });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }

  it('shows each replica and its lag in the readiness detail and /metrics; one lagging past the bound is skipped', async () => {
    const [a] = servers;
    const name = `127.0.0.1:${replica.port}/${new URL(replicaUrl).pathname.slice(1)}`;
    const ready = await replicaState(a, (r) => r.ok);
    expect(ready).toMatchObject({ name, ok: true, detail: 'ok' });
    expect(await metric(a, 'spyglass_db_replica_up', `replica="${name}"`)).toBe(1);
    expect(await metric(a, 'spyglass_db_replica_lag_seconds', `replica="${name}"`)).toBeGreaterThanOrEqual(0);

    // Replay paused while the primary writes: the replica falls behind, past the bound.
    await onReplica((c) => c.query('SELECT pg_wal_replay_pause()'));
    try {
      const lagTrace = `lag${alnum(8)}`;
      const sent = await request(a.baseUrl, 'POST', '/api/collector', { ...writer, body: traceSaying(lagTrace) });
      expect(sent.status, sent.text).toBeLessThan(300);
      const behind = await replicaState(a, (r) => !r.ok);
      expect(behind.lagMs).toBeGreaterThan(MAX_LAG_MS);
      expect(behind.detail).toContain('SPYGLASS_READ_MAX_LAG_MS');
      expect(await metric(a, 'spyglass_db_replica_up', `replica="${name}"`)).toBe(0);
      expect(await metric(a, 'spyglass_db_replica_lag_seconds', `replica="${name}"`)).toBeGreaterThan(MAX_LAG_MS / 1000);
      // Skipped: another client's search finds the trace the replica has not replayed (the primary answers).
      const found = await search(a, reader(), lagTrace);
      expect(found.status, found.text).toBe(200);
      expect(found.body.traces.map((t: { trace_id: string }) => t.trace_id)).toEqual([lagTrace]);
    } finally {
      await onReplica((c) => c.query('SELECT pg_wal_replay_resume()'));
    }
    await replicaState(a, (r) => r.ok && r.lagMs === 0);
  }, 60_000);

  it('answers searches from the replica, counted per pool in /metrics', async () => {
    const [a] = servers;
    const name = `127.0.0.1:${replica.port}/${new URL(replicaUrl).pathname.slice(1)}`;
    await replicaState(a, (r) => r.ok && r.lagMs === 0);
    const before = (await metric(a, 'spyglass_db_statements', `pool="${name}"`)) ?? 0;
    for (let i = 0; i < 10; i++) expect((await search(a, reader(), `anything ${i}`)).status).toBe(200);
    const after = (await metric(a, 'spyglass_db_statements', `pool="${name}"`)) ?? 0;
    // Each search is a page and a count: both on the replica.
    expect(after - before).toBeGreaterThanOrEqual(20);
  });

  it('a client reads its own write at once, on this process and, with X-Spyglass-Read-After, on the other', async () => {
    const [a, b] = servers;
    await replicaState(a, (r) => r.ok && r.lagMs === 0);
    await replicaState(b, (r) => r.ok && r.lagMs === 0);
    // The replica stops replaying (within the lag bound for a while): what is written now is only on the primary.
    await onReplica((c) => c.query('SELECT pg_wal_replay_pause()'));
    try {
      const traceId = `ryw${alnum(12)}`;
      const sent = await request(a.baseUrl, 'POST', '/api/collector', { ...writer, body: traceSaying(traceId) });
      expect(sent.status, sent.text).toBeLessThan(300);
      const position = sent.headers.get('x-spyglass-read-after');
      expect(position).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);

      // The writer, on the process it wrote through: its search and the trace's page find it.
      const own = await search(a, writer, traceId);
      expect(own.body.traces.map((t: { trace_id: string }) => t.trace_id)).toEqual([traceId]);
      const detail = await request(a.baseUrl, 'GET', `/api/trace/${traceId}`, writer);
      expect(detail.status, detail.text).toBe(200);

      // Another client reads from the replica, which has not replayed the write yet.
      const other = await search(a, reader(), traceId);
      expect(other.status).toBe(200);
      expect(other.body.traces).toEqual([]);

      // The other process knows nothing of the write: without the header it reads the replica...
      expect((await search(b, writer, traceId)).body.traces).toEqual([]);
      // ...with it, the primary (the replica does not get there within the wait).
      const carried = await search(b, writer, traceId, { 'x-spyglass-read-after': position! });
      expect(carried.body.traces.map((t: { trace_id: string }) => t.trace_id)).toEqual([traceId]);
    } finally {
      await onReplica((c) => c.query('SELECT pg_wal_replay_resume()'));
    }
    // Replayed: everyone finds it on the replica.
    await replicaState(b, (r) => r.ok && r.lagMs === 0);
  }, 60_000);

  it('a project key revoked through one process, or by SQL on the primary, is refused by the other, which kept using it from memory', async () => {
    const [a, b] = servers;
    for (const how of ['the API', 'SQL'] as const) {
      const minted = await request(a.baseUrl, 'POST', `/api/projects/${projectId}/api-keys`, { token: adminKey });
      expect(minted.status, minted.text).toBe(200);
      const key = { authToken: minted.body.token as string };
      // The other process reads the key's row once, then answers from its copy.
      for (let i = 0; i < 3; i++) expect((await search(b, key, `before ${i}`)).status).toBe(200);
      if (how === 'the API') {
        const revoked = await request(a.baseUrl, 'DELETE', `/api/api-keys/${minted.body.apiKey.id}`, { token: adminKey });
        expect(revoked.status, revoked.text).toBe(200);
      } else {
        await onPrimary((c) => c.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [minted.body.apiKey.id]));
      }
      // Used steadily meanwhile, the copy is still dropped (within KEY_REFRESH_MS; the deadline here only stops a broken run).
      const deadline = Date.now() + 15_000;
      let status = 200;
      while (status === 200 && Date.now() < deadline) {
        status = (await search(b, key, 'after')).status;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status, how).toBe(401);
    }
  }, 60_000);

  it('refuses a malformed X-Spyglass-Read-After, naming the header', async () => {
    const res = await search(servers[0], writer, 'x', { 'x-spyglass-read-after': 'yesterday' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('X-Spyglass-Read-After');
  });

  it('skips a stopped replica: reads still answer, from the primary, on both processes', async () => {
    const traceId = `stopped${alnum(10)}`;
    const sent = await request(servers[0].baseUrl, 'POST', '/api/collector', { ...writer, body: traceSaying(traceId) });
    expect(sent.status, sent.text).toBeLessThan(300);
    replica.stop();
    try {
      for (const s of servers) {
        const down = await replicaState(s, (r) => !r.ok && r.lagMs === null);
        expect(down.detail).toMatch(/does not answer|lost a connection/);
        const ready = await request(s.baseUrl, 'GET', '/readyz');
        expect(ready.status).toBe(200);
        const found = await search(s, reader(), traceId);
        expect(found.status, found.text).toBe(200);
        expect(found.body.traces.map((t: { trace_id: string }) => t.trace_id)).toEqual([traceId]);
      }
    } finally {
      replica.start();
    }
    for (const s of servers) await replicaState(s, (r) => r.ok);
  }, 60_000);
});

describe('read replicas without PostgreSQL', () => {
  const tmp = useTmpDirs();

  it('refuses DATABASE_READ_URL with the embedded database at start, naming the variable', async () => {
    const run = await runCli(['serve'], { SPYGLASS_DATA_DIR: tmp(), DATABASE_READ_URL: 'postgres://127.0.0.1:5433/spyglass' }, { timeoutMs: 60_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('DATABASE_READ_URL');
    expect(run.stderr).toContain('DATABASE_URL');
  });

  it('refuses a read URL that is not a PostgreSQL URL, naming the variable', async () => {
    const run = await runCli(['serve'], { SPYGLASS_DATA_DIR: tmp(), DATABASE_URL: 'postgres://127.0.0.1:1/none', DATABASE_READ_URL: 'mysql://127.0.0.1/x' }, { timeoutMs: 60_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('DATABASE_READ_URL');
  });

  it('answers a malformed X-Spyglass-Read-After with 400 on PGlite too', async () => {
    const app = await startApp('pglite');
    const res = await app.request('POST', '/api/traces/search', { authToken: app.creds.projectApiKey, headers: { 'x-spyglass-read-after': '12' }, body: {} });
    expect(res.status).toBe(400);
    expect(res.text).toContain('X-Spyglass-Read-After');
    const ok = await app.request('POST', '/api/traces/search', { authToken: app.creds.projectApiKey, headers: { 'x-spyglass-read-after': '0/16B3748' }, body: {} });
    expect(ok.status, ok.text).toBe(200);
  });
});

/** A trace whose input holds its own id: a search for the id finds it. */
function traceSaying(traceId: string) {
  const body = simpleTrace(traceId, Date.now(), 2);
  const span = body.spans[0] as { input: { value: { content: string }[] } };
  span.input.value[0].content = `Please look up ${traceId} for me`;
  return body;
}

function alnum(n: number): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(n), (b) => chars[b % chars.length]).join('');
}
