import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { request } from '../support/harness.ts';
import { signalTree, startServer, useTmpDirs, type Running } from '../support/server-process.ts';

const tmpDir = useTmpDirs();
const hasStrace = (() => {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Sends `n` traces one after another, each acknowledged (committed) before the next. */
async function ingestSequentially(server: Running, dataDir: string, n: number) {
  const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const now = Date.now();
  for (let i = 0; i < n; i++) {
    const res = await request(server.baseUrl, 'POST', '/api/collector', {
      authToken: creds.projectApiKey,
      body: { trace_id: `durable-${i}`, spans: [{ span_id: 's', type: 'llm', timestamps: { started_at: now - 1000, finished_at: now } }] },
    });
    expect(res.status).toBe(200);
  }
  return creds;
}

async function stop(server: Running, signal: NodeJS.Signals = 'SIGTERM') {
  server.child.kill(signal);
  await server.exited;
}

/** Every file and directory under `dir` whose mode is not private, as "mode path". */
function notPrivate(dir: string): string[] {
  const found: string[] = [];
  const walk = (p: string) => {
    const st = fs.statSync(p);
    const mode = st.mode & 0o777;
    if (st.isDirectory()) {
      if (mode !== 0o700) found.push(`${mode.toString(8)} ${p}`);
      for (const e of fs.readdirSync(p)) walk(path.join(p, e));
    } else if (mode !== 0o600) found.push(`${mode.toString(8)} ${p}`);
  };
  walk(dir);
  return found;
}

describe('the PGlite data directory', { timeout: 120_000 }, () => {
  it.skipIf(!hasStrace)('every acknowledged commit is flushed to disk (fsync) before the answer', async () => {
    const dataDir = tmpDir();
    const trace = path.join(dataDir, '..', `${path.basename(dataDir)}.strace`);
    // strace -y names the file behind each descriptor; only the server's flushes of its WAL count.
    const server = await startServer({ SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, ['strace', '--seccomp-bpf', '-f', '-qq', '-y', '-e', 'trace=fsync,fdatasync', '-o', trace]);
    const before = walFlushes(trace);
    await ingestSequentially(server, dataDir, 20);
    const after = walFlushes(trace);
    signalTree(server.child.pid!, 'SIGTERM');
    await server.exited;
    fs.rmSync(trace, { force: true });
    expect(after - before).toBeGreaterThanOrEqual(20);
  });

  it('files are 0600 and directories 0700 whatever the umask; the lock dies with its process', async () => {
    const dataDir = tmpDir();
    fs.rmSync(dataDir, { recursive: true });
    const umask000 = ['sh', '-c', 'umask 000 && exec "$0" "$@"'];
    const first = await startServer({ SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, umask000);
    const creds = await ingestSequentially(first, dataDir, 3);
    expect(notPrivate(dataDir)).toEqual([]);

    // Killed, then restarted at once, without waiting for the killed process to be reaped;
    // meanwhile someone opened up the directory: it is made private again.
    first.child.kill('SIGKILL');
    fs.chmodSync(dataDir, 0o777);
    fs.chmodSync(path.join(dataDir, 'initial-credentials.json'), 0o666);
    fs.writeFileSync(path.join(dataDir, 'left-by-hand.txt'), 'x', { mode: 0o666 });
    const second = await startServer({ SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, umask000);
    expect((await request(second.baseUrl, 'GET', '/api/trace/durable-0', { token: creds.projectApiKey })).status).toBe(200);
    await ingestSequentially(second, dataDir, 3);
    expect(notPrivate(dataDir)).toEqual([]);
    await stop(second, 'SIGKILL');
    await first.exited;

    // A lock file naming a live process that is not Spyglass (here: this test's own PID),
    // as a PID file of a killed server does once its PID is reused.
    fs.writeFileSync(path.join(dataDir, 'spyglass.lock'), String(process.pid));
    const third = await startServer({ SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    expect((await request(third.baseUrl, 'GET', '/api/trace/durable-2', { token: creds.projectApiKey })).status).toBe(200);
    await stop(third);
  });

  it('a first start stopped while it laid out the empty database starts over, whole, on the next start', async () => {
    // What a first start stopped midway leaves: a partly unpacked database beside an
    // incomplete pgdata (no PG_VERSION: never a database that answered anything).
    const dataDir = tmpDir();
    fs.mkdirSync(path.join(dataDir, 'pgdata.unpacking', 'base'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'pgdata.unpacking', 'base', 'half-written'), 'x');
    fs.mkdirSync(path.join(dataDir, 'pgdata', 'global'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'pgdata', 'global', 'pg_control'), 'not a control file');
    const first = await startServer({ SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    const creds = await ingestSequentially(first, dataDir, 2);
    expect(fs.existsSync(path.join(dataDir, 'pgdata.unpacking'))).toBe(false);
    expect(notPrivate(dataDir)).toEqual([]);
    await stop(first, 'SIGKILL');

    const second = await startServer({ SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    expect(second.output()).not.toContain('first start');
    expect((await request(second.baseUrl, 'GET', '/api/trace/durable-1', { token: creds.projectApiKey })).status).toBe(200);
    await stop(second);
  });
});

function walFlushes(straceFile: string): number {
  if (!fs.existsSync(straceFile)) return 0;
  return fs
    .readFileSync(straceFile, 'utf8')
    .split('\n')
    .filter((l) => /^\d+\s+f(data)?sync\(\d+<[^>]*\/pg_wal\/[^>]*>\)\s+=\s+0/.test(l)).length;
}
