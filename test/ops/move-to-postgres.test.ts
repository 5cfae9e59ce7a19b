import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { adminQuery, withDatabase } from '../support/global-setup.ts';
import { request } from '../support/harness.ts';
import { BIN, NODE_FLAGS, runCliInProcess, signalTree, startServer, useTmpDirs, type Running } from '../support/server-process.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { signedWith, waitFor } from '../webhooks/support.ts';

/**
 * `spyglass move-to-postgres` end to end: a PGlite installation is used over HTTP, stopped,
 * moved (once interrupted on purpose), and a server on PostgreSQL then answers everything
 * the old one had made, with the keys the command printed. The servers, and the run killed
 * mid-copy, are processes of their own; the other commands run in this process
 * (runCliInProcess: what they say and copy is the subject, not the process around them).
 * `BENCH_ONLY=soak npm run bench` moves 3,000 traces instead of 1,100 (SPYGLASS_SOAK, which only
 * that bench sets).
 */
const LONG = process.env.SPYGLASS_SOAK === '1';
/** More than two of the move's batches of 500 rows. */
const MANY_TRACES = LONG ? 3000 : 1100;
const pgUrl = process.env.TEST_DATABASE_URL;
const tmpDir = useTmpDirs();

async function withFreshDatabase(fn: (url: string) => Promise<void>): Promise<void> {
  const name = `spyglass_move_${randomBytes(6).toString('hex')}`;
  await adminQuery(pgUrl!, `CREATE DATABASE ${name}`);
  try {
    await fn(withDatabase(pgUrl!, name));
  } finally {
    await adminQuery(pgUrl!, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

function trace(id: string, text: string) {
  return {
    trace_id: id,
    spans: [
      {
        span_id: `${id}-s1`,
        type: 'llm',
        name: 'answer',
        model: 'gpt-4o-mini',
        input: { type: 'chat_messages', value: [{ role: 'user', content: text }] },
        output: { type: 'chat_messages', value: [{ role: 'assistant', content: `re: ${text}` }] },
        metrics: { prompt_tokens: 12, completion_tokens: 5 },
        timestamps: { started_at: Date.now() - 2000, finished_at: Date.now() - 1000 },
      },
    ],
    metadata: { user_id: 'alice', labels: ['moved'] },
  };
}

/** `export NAME='value'` lines of the command's output, as an environment. */
function exportsOf(out: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of out.matchAll(/^\s*export (\w+)='([^']*)'/gm)) env[m[1]] = m[2];
  return env;
}

async function stop(srv: Running): Promise<void> {
  srv.child.kill('SIGTERM');
  expect(await srv.exited).toBe(0);
}

describe.skipIf(!pgUrl)('move-to-postgres', { timeout: 480_000 }, () => {
  it('moves a PGlite installation; API keys, share links, the agent cache, webhook secrets and prompt versions work unchanged', async () => {
    const dataDir = tmpDir();
    const receiver = await Receiver.start();
    // The dispatcher is off here: the prompt events stay in the outbox and are sent from PostgreSQL.
    const old = await startServer({ SPYGLASS_DATA_DIR: dataDir, SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1', SPYGLASS_WEBHOOK_POLL_MS: '0' });
    const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    const project = { authToken: creds.projectApiKey as string };

    const minted = await request(old.baseUrl, 'POST', '/api/api-keys', {
      token: creds.adminApiKey,
      body: { name: 'reader', keyType: 'service', permissionMode: 'readonly', projectIds: [creds.project.id] },
    });
    expect(minted.status).toBe(200);
    const endpoint = await request(old.baseUrl, 'POST', '/api/webhooks/v1/endpoints', { ...project, body: { url: receiver.url, enabled_events: ['prompt.*'] } });
    expect(endpoint.status).toBe(201);
    const secret = endpoint.body.data.secret as string;
    expect((await request(old.baseUrl, 'POST', '/api/collector', { ...project, body: trace('moved-trace', 'where is my parcel?') })).status).toBe(200);
    const share = await request(old.baseUrl, 'POST', '/api/trace/moved-trace/share', project);
    expect(share.status).toBe(200);
    const shareToken = (share.body.path as string).split('/').pop()!;
    expect((await request(old.baseUrl, 'PUT', '/api/agent-cache/MOVED_STATE', { ...project, body: { value: 'state before the move', ttl_seconds: 86400 } })).status).toBe(200);
    expect((await request(old.baseUrl, 'POST', '/api/prompts', { ...project, body: { handle: 'support/reply', prompt: 'Version one.' } })).status).toBe(200);
    expect((await request(old.baseUrl, 'PUT', '/api/prompts/support%2Freply', { ...project, body: { commitMessage: 'second', prompt: 'Version two.' } })).status).toBe(200);
    await stop(old);

    await withFreshDatabase(async (url) => {
      const env = { SPYGLASS_DATA_DIR: dataDir };
      // An interrupted run: the target is already migrated (allowed: still empty); the copy
      // waits on a table another session holds, and the process is killed mid-copy.
      expect((await runCliInProcess(['migrate'], { DATABASE_URL: url, SPYGLASS_DATA_DIR: tmpDir() })).code).toBe(0);
      // One session holds the lock; another watches (pg_stat_activity is a snapshot per transaction).
      const [holder, watcher] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
      for (const c of [holder, watcher]) {
        c.on('error', () => {});
        await c.connect();
      }
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE prompt_versions IN SHARE MODE');
      const child = spawn(process.execPath, [...NODE_FLAGS, BIN, 'move-to-postgres', url], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let interruptedOut = '';
      child.stdout.on('data', (d) => (interruptedOut += d));
      child.stderr.on('data', (d) => (interruptedOut += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const waiting = async () =>
        (await watcher.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = 'spyglass move-to-postgres' AND wait_event_type = 'Lock'`)).rowCount! > 0;
      const until = Date.now() + 60_000;
      while (!(await waiting())) {
        if (Date.now() > until || child.exitCode !== null) throw new Error(`the move never blocked: ${interruptedOut}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(interruptedOut).toContain('copied organizations');
      signalTree(child.pid!, 'SIGKILL');
      expect(await exited).toBeNull();
      await holder.query('ROLLBACK');
      // The killed client's backend finds its socket closed and rolls the copy back.
      while ((await watcher.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = 'spyglass move-to-postgres'`)).rowCount! > 0) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await watcher.query('SELECT count(*)::int AS n FROM organizations')).rows[0].n).toBe(0);
      await Promise.all([holder.end(), watcher.end()]);

      // Started again, it completes.
      const moved = await runCliInProcess(['move-to-postgres', url], env);
      expect(moved.code, moved.out).toBe(0);
      expect(moved.out).toMatch(/every row count and checksum matches/);
      expect(moved.out).toMatch(/copied prompt_versions: 2 rows, checksum matches/);
      const next = exportsOf(moved.out);
      expect(Object.keys(next).sort()).toEqual(['DATABASE_URL', 'SPYGLASS_ENCRYPTION_KEY', 'SPYGLASS_TOKEN_HASH_KEY']);
      expect(next.DATABASE_URL).toBe(url);

      // A second run refuses: the target holds data now.
      const again = await runCliInProcess(['move-to-postgres', url], env);
      expect(again.code).toBe(1);
      expect(again.out).toContain('the target database is not empty');

      // The server on PostgreSQL, with a new (empty) data directory: the keys come from the
      // printed variables alone.
      const freshDir = tmpDir();
      const srv = await startServer({ ...next, SPYGLASS_DATA_DIR: freshDir, SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1', SPYGLASS_WEBHOOK_POLL_MS: '100' });
      expect(srv.output()).not.toContain('first start');
      expect(fs.readdirSync(freshDir)).toEqual([]);

      // API keys: the project key, the admin key and the key minted before the move.
      const got = await request(srv.baseUrl, 'GET', '/api/trace/moved-trace', project);
      expect(got.status).toBe(200);
      expect(JSON.stringify(got.body)).toContain('where is my parcel?');
      expect((await request(srv.baseUrl, 'GET', '/api/organization', { token: creds.adminApiKey })).status).toBe(200);
      expect((await request(srv.baseUrl, 'GET', '/api/trace/moved-trace', { token: minted.body.token, projectId: creds.project.id })).status).toBe(200);
      expect((await request(srv.baseUrl, 'GET', '/api/trace/moved-trace', { authToken: 'sgp-' + 'x'.repeat(16) + '_' + 'y'.repeat(48) })).status).toBe(401);
      // The share link.
      const shared = await request(srv.baseUrl, 'GET', `/api/share/${shareToken}`);
      expect(shared.status).toBe(200);
      expect(JSON.stringify(shared.body)).toContain('where is my parcel?');
      // The agent-cache entry, encrypted at rest, decrypts.
      const cached = await request(srv.baseUrl, 'GET', '/api/agent-cache/MOVED_STATE', project);
      expect(cached.body).toEqual({ name: 'MOVED_STATE', value: 'state before the move' });
      // Prompt versions.
      const latest = await request(srv.baseUrl, 'GET', '/api/prompts/support%2Freply', project);
      expect([latest.body.version, latest.body.prompt]).toEqual([2, 'Version two.']);
      expect((await request(srv.baseUrl, 'GET', '/api/prompts/support%2Freply:1', project)).body.prompt).toBe('Version one.');
      const third = await request(srv.baseUrl, 'PUT', '/api/prompts/support%2Freply', { ...project, body: { commitMessage: 'third', prompt: 'Version three.' } });
      expect(third.body.version).toBe(3);
      // Webhooks: the events waiting in the outbox before the move, then one made after it,
      // each signed with the secret made on PGlite (decrypted with the moved key).
      await waitFor(() => receiver.events().filter((e) => e.type === 'prompt.version_created').length >= 2, 20_000);
      expect(receiver.events().map((e) => e.type)).toEqual(['prompt.created', 'prompt.version_created', 'prompt.version_created']);
      for (const r of receiver.received) expect(signedWith(secret, r)).toBe(true);
      // New rows after the move do not collide with moved ids.
      expect((await request(srv.baseUrl, 'POST', '/api/collector', { ...project, body: trace('after-move', 'and now?') })).status).toBe(200);
      await stop(srv);
    });
    await receiver.close();
  });

  it('refuses a target that is not empty, and a source a running server holds, with clear messages', async () => {
    const dataDir = tmpDir();
    const srv = await startServer({ SPYGLASS_DATA_DIR: dataDir });
    await withFreshDatabase(async (url) => {
      const busy = await runCliInProcess(['move-to-postgres', url], { SPYGLASS_DATA_DIR: dataDir });
      expect(busy.code).toBe(1);
      expect(busy.out).toContain('in use by process');
      await stop(srv);

      await adminQuery(url, 'CREATE TABLE someone_elses (id int); INSERT INTO someone_elses VALUES (1)');
      const full = await runCliInProcess(['move-to-postgres', url], { SPYGLASS_DATA_DIR: dataDir });
      expect(full.code).toBe(1);
      expect(full.out).toContain('the target database is not empty (rows in someone_elses)');
    });
    const usage = await runCliInProcess(['move-to-postgres', 'mysql://nope'], { SPYGLASS_DATA_DIR: dataDir });
    expect(usage.code).toBe(2);
    expect(usage.out).toContain('usage: spyglass move-to-postgres <DATABASE_URL>');
  });

  it(`moves ${MANY_TRACES} traces, in several batches, and finds every one on PostgreSQL`, { timeout: 900_000 }, async () => {
    const dataDir = tmpDir();
    const old = await startServer({ SPYGLASS_DATA_DIR: dataDir });
    const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    const project = { authToken: creds.projectApiKey as string };
    const count = MANY_TRACES;
    for (let i = 0; i < count; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) => request(old.baseUrl, 'POST', '/api/collector', { ...project, body: trace(`long-${i + j}`, `question ${i + j} ${'x'.repeat(2000)}`) })),
      );
    }
    await stop(old);
    await withFreshDatabase(async (url) => {
      const moved = await runCliInProcess(['move-to-postgres', url], { SPYGLASS_DATA_DIR: dataDir });
      expect(moved.code, moved.out).toBe(0);
      expect(moved.out).toContain(`copied traces: ${count} rows, checksum matches`);
      const srv = await startServer({ ...exportsOf(moved.out), SPYGLASS_DATA_DIR: tmpDir() });
      const search = await request(srv.baseUrl, 'POST', '/api/trace/search', { ...project, body: { pageSize: 1 } });
      expect(search.body.pagination.totalHits).toBe(count);
      await stop(srv);
    });
  });
});
