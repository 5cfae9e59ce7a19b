import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { lockAddress } from '../../src/db/data-dir-lock.ts';
import { request } from '../support/harness.ts';
import { runCliInProcess, startServer, useTmpDirs, type Running } from '../support/server-process.ts';

/**
 * `spyglass backup` and `spyglass restore` on PGlite, through the command line and HTTP:
 * a backup taken while the server ingests holds every trace acknowledged before it began.
 * The servers run in processes of their own (a backup is of a running server, a restore starts
 * one); the commands run in this process (runCliInProcess: what they say, answer and write is the
 * subject, not the process around them). `BENCH_ONLY=soak npm run bench` backs up a larger
 * database under ingest: 3,000 traces of 4 KB instead of 200 of 1 KB (SPYGLASS_SOAK, which only
 * that bench sets).
 */
const LONG = process.env.SPYGLASS_SOAK === '1';
const PRELOAD = LONG ? 3000 : 200;
const PADDING = LONG ? 4000 : 1000;
const tmpDir = useTmpDirs();

function trace(id: string, padding = 0) {
  return {
    trace_id: id,
    spans: [
      {
        span_id: `${id}-s1`,
        type: 'llm',
        name: 'answer',
        input: { type: 'text', value: `question ${id} ${'x'.repeat(padding)}` },
        output: { type: 'text', value: `answer ${id}` },
        timestamps: { started_at: Date.now() - 2000, finished_at: Date.now() - 1000 },
      },
    ],
  };
}

async function stop(srv: Running): Promise<void> {
  srv.child.kill('SIGTERM');
  expect(await srv.exited).toBe(0);
}

/** Sends traces, `parallel` at a time, until stopped; records when each was acknowledged. */
function ingestLoop(baseUrl: string, token: string, parallel: number, padding: number) {
  const acked: { id: string; at: number }[] = [];
  const failed: string[] = [];
  let running = true;
  let n = 0;
  const done = Promise.all(
    Array.from({ length: parallel }, async () => {
      while (running) {
        const id = `ingest-${n++}`;
        const res = await request(baseUrl, 'POST', '/api/collector', { authToken: token, body: trace(id, padding) });
        if (res.status === 200) acked.push({ id, at: Date.now() });
        else failed.push(`${id}: ${res.status} ${res.text}`);
      }
    }),
  );
  return {
    acked,
    failed,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

async function backupWhileIngesting(srv: Running, dataDir: string, options: { preload: number; padding: number }) {
  const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const token = creds.projectApiKey as string;
  for (let i = 0; i < options.preload; i += 25) {
    await Promise.all(Array.from({ length: 25 }, (_, j) => request(srv.baseUrl, 'POST', '/api/collector', { authToken: token, body: trace(`pre-${i + j}`, options.padding) })));
  }
  const ingest = ingestLoop(srv.baseUrl, token, 4, options.padding);
  while (ingest.acked.length < 20) await new Promise((r) => setTimeout(r, 20));

  const acknowledgedBefore = ingest.acked.map((a) => a.id);
  const began = Date.now();
  const file = path.join(tmpDir(), 'spyglass.tar.gz');
  const backup = await runCliInProcess(['backup', file], { SPYGLASS_DATA_DIR: dataDir });
  const ended = Date.now();
  await new Promise((r) => setTimeout(r, 300));
  await ingest.stop();

  expect(backup.code, backup.out).toBe(0);
  expect(backup.out).toMatch(/from the running server \(process \d+\)/);
  expect(backup.out).toContain("It holds the installation's keys (token-hash.key, encryption.key)");
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  // The server kept serving: ingest went on during the backup, and nothing failed.
  expect(ingest.failed).toEqual([]);
  expect(ingest.acked.filter((a) => a.at > began && a.at < ended).length).toBeGreaterThan(0);
  await stop(srv);

  const restoredDir = path.join(tmpDir(), 'restored');
  const restored = await runCliInProcess(['restore', file], { SPYGLASS_DATA_DIR: restoredDir });
  expect(restored.code, restored.out).toBe(0);
  expect(restored.out).toMatch(/Restored the backup of .* into .*restored: \d+ traces/);
  for (const entry of fs.readdirSync(restoredDir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    expect(fs.statSync(full).mode & 0o777, full).toBe(entry.isDirectory() ? 0o700 : 0o600);
  }

  // The restored installation: the same project key (the key file came back) finds every
  // trace acknowledged before the backup began.
  const again = await startServer({ SPYGLASS_DATA_DIR: restoredDir });
  expect(again.output()).not.toContain('first start');
  const wanted = [...acknowledgedBefore, ...Array.from({ length: options.preload }, (_, i) => `pre-${i}`)];
  const missing: string[] = [];
  for (let i = 0; i < wanted.length; i += 20) {
    const answers = await Promise.all(wanted.slice(i, i + 20).map((id) => request(again.baseUrl, 'GET', `/api/trace/${id}`, { authToken: token })));
    answers.forEach((res, j) => res.status !== 200 && missing.push(`${wanted[i + j]}: ${res.status}`));
  }
  expect(missing).toEqual([]);
  await stop(again);
  return { acknowledgedBefore: acknowledgedBefore.length, total: ingest.acked.length };
}

describe('backup and restore (PGlite)', { timeout: 600_000 }, () => {
  // One server for the two tests of a running server: the first asks its lock socket, the second backs it up (and stops it).
  let dataDir: string;
  let srv: Running;
  beforeAll(async () => {
    dataDir = tmpDir();
    srv = await startServer({ SPYGLASS_DATA_DIR: dataDir });
  });

  it("a running server answers a backup request only with the data directory's control key", async () => {
    const ask = (line: string) =>
      new Promise<string>((resolve) => {
        let out = '';
        const socket = net.connect(lockAddress(dataDir), () => socket.write(line));
        socket.on('data', (d) => (out += d.toString('latin1')));
        socket.on('close', () => resolve(out));
      });
    const wrong = await ask(`backup ${'A'.repeat(88)}\n`);
    expect(wrong).toBe(`${srv.child.pid}\n{"ok":false,"error":"not authorized: the request must carry control.key of the data directory"}\n`);
    const key = fs.readFileSync(path.join(dataDir, 'control.key'), 'utf8').trim();
    expect(await ask(`shutdown ${key}\n`)).toContain('"error":"this process does not answer \\"shutdown\\""');
    // The lock's own question (who holds the directory?) is answered as before.
    const second = await runCliInProcess(['migrate'], { SPYGLASS_DATA_DIR: dataDir });
    expect(second.out).toContain(`in use by process ${srv.child.pid}`);
  });

  it(`backs up a running server (${PRELOAD} traces of ${PADDING / 1000} KB) while ingest goes on; the restore holds every trace acknowledged before the backup began`, { timeout: LONG ? 1_800_000 : 600_000 }, async () => {
    const { acknowledgedBefore } = await backupWhileIngesting(srv, dataDir, { preload: PRELOAD, padding: PADDING });
    expect(acknowledgedBefore).toBeGreaterThanOrEqual(20);
  });

  it('without a server, with keys from variables, and every refusal says why', async () => {
    const dataDir = tmpDir();
    expect((await runCliInProcess(['init'], { SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'warn' })).code).toBe(0);
    const file = path.join(tmpDir(), 'offline.tar.gz');
    const tokenHashKey = 'k'.repeat(40);
    const offline = await runCliInProcess(['backup', file], { SPYGLASS_DATA_DIR: dataDir, SPYGLASS_TOKEN_HASH_KEY: tokenHashKey });
    expect(offline.code, offline.out).toBe(0);
    expect(offline.out).toContain('from the data directory (no server was running)');
    expect(offline.out).toContain('WARNING: this backup does NOT hold SPYGLASS_TOKEN_HASH_KEY');

    const restoredDir = tmpDir();
    const restored = await runCliInProcess(['restore', file], { SPYGLASS_DATA_DIR: restoredDir });
    expect(restored.code, restored.out).toBe(0);
    expect(restored.out).toContain('WARNING: this backup does NOT hold SPYGLASS_TOKEN_HASH_KEY');
    expect(fs.existsSync(path.join(restoredDir, 'token-hash.key'))).toBe(false);
    expect(fs.existsSync(path.join(restoredDir, 'encryption.key'))).toBe(true);

    const full = await runCliInProcess(['restore', file], { SPYGLASS_DATA_DIR: restoredDir });
    expect([full.code, full.out]).toEqual([1, expect.stringContaining(`the data directory ${restoredDir} is not empty`)]);
    const garbage = path.join(tmpDir(), 'not-a-backup.tar.gz');
    fs.writeFileSync(garbage, 'hello');
    const bad = await runCliInProcess(['restore', garbage], { SPYGLASS_DATA_DIR: tmpDir() });
    expect([bad.code, bad.out]).toEqual([1, expect.stringContaining('is not a Spyglass backup')]);
    const onPostgres = await runCliInProcess(['backup', file], { SPYGLASS_DATA_DIR: dataDir, DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    expect([onPostgres.code, onPostgres.out]).toEqual([1, expect.stringContaining('back up with pg_dump')]);
    const usage = await runCliInProcess(['backup'], { SPYGLASS_DATA_DIR: dataDir });
    expect([usage.code, usage.out]).toEqual([2, expect.stringContaining('usage: spyglass backup <file>')]);
  });
});
