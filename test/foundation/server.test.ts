import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { adminQuery, withDatabase } from '../support/global-setup.ts';
import { request } from '../support/harness.ts';

const BIN = path.resolve('bin/spyglass.mjs');

interface Running {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  exited: Promise<number | null>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

async function startServer(env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited: ${out}`);
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) return { child, baseUrl, output: () => out, exited };
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${out}`);
}

async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, out };
}

const tmpDirs: string[] = [];
const tmpDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-srv-'));
  tmpDirs.push(d);
  return d;
};
afterAll(() => tmpDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('the server process (PGlite in a data directory)', () => {
  it('first start creates and prints credentials once; a restart keeps them and creates nothing', async () => {
    const dataDir = tmpDir();
    const first = await startServer({ SPYGLASS_DATA_DIR: dataDir });
    const file = path.join(dataDir, 'initial-credentials.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const creds = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(first.output()).toContain('These credentials are shown once');
    expect(first.output()).toContain(creds.adminApiKey);
    expect(creds.projectApiKey).toMatch(/^sgp-/);

    const projects = await request(first.baseUrl, 'GET', '/api/projects', { token: creds.adminApiKey });
    expect(projects.status).toBe(200);
    await request(first.baseUrl, 'POST', '/api/projects', { token: creds.adminApiKey, body: { name: 'Kept' } });
    // A second process on the same data directory is refused with a clear message.
    const second = await runCli(['migrate'], { SPYGLASS_DATA_DIR: dataDir });
    expect(second.code).not.toBe(0);
    expect(second.out).toContain('in use by process');

    // Logs are JSON lines without secrets.
    const logLines = first.output().split('\n').filter((l) => l.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(2);
    for (const line of logLines) {
      expect(() => JSON.parse(line)).not.toThrow();
      expect(line).not.toContain(creds.adminApiKey.split('_')[1]);
      expect(line).not.toContain(creds.projectApiKey.split('_')[1]);
      expect(line).not.toContain(creds.user.password);
    }

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('stopped cleanly');

    const again = await startServer({ SPYGLASS_DATA_DIR: dataDir });
    expect(again.output()).not.toContain('shown once');
    const list = await request(again.baseUrl, 'GET', '/api/projects', { token: creds.adminApiKey });
    expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['My Project', 'Kept']);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  });

  it('SIGTERM lets an in-flight request finish before the process exits', async () => {
    const dataDir = tmpDir();
    const srv = await startServer({ SPYGLASS_DATA_DIR: dataDir });
    const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    const url = new URL(`${srv.baseUrl}/api/projects`);
    const body = JSON.stringify({ name: 'Created during shutdown' });
    // Send the headers and half the body, signal the server, then send the rest.
    const answer = new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(url.port), '127.0.0.1', () => {
        socket.write(
          `POST /api/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${creds.adminApiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n` +
            body.slice(0, 10),
        );
        setTimeout(() => {
          srv.child.kill('SIGTERM');
          setTimeout(() => socket.write(body.slice(10)), 300);
        }, 200);
      });
      let data = '';
      socket.on('data', (d) => (data += d));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    const raw = await answer;
    expect(raw).toMatch(/^HTTP\/1.1 200/);
    expect(raw).toContain('Created during shutdown');
    expect(await srv.exited).toBe(0);
  });

  it('reports bad configuration naming the variable', async () => {
    const res = await runCli(['migrate'], { SPYGLASS_DATA_DIR: tmpDir(), PORT: 'eighty' });
    expect(res.code).toBe(2);
    expect(res.out).toContain('PORT');
  });
});

const pgTemplate = inject('pgTemplate');
describe.runIf(pgTemplate)('the server process on PostgreSQL', () => {
  it('migrates explicitly, takes headless SPYGLASS_INIT_* values, and keeps them across restarts', async () => {
    const name = `spyglass_srv_${randomBytes(4).toString('hex')}`;
    await adminQuery(pgTemplate!.url, `CREATE DATABASE ${name}`);
    try {
      const dataDir = tmpDir();
      const projectKey = 'sgp-' + 'P'.repeat(16) + '_' + 'p'.repeat(48);
      const adminKey = 'sg-' + 'A'.repeat(16) + '_' + 'a'.repeat(48);
      const env = {
        DATABASE_URL: withDatabase(pgTemplate!.url, name),
        SPYGLASS_DATA_DIR: dataDir,
        SPYGLASS_INIT_ORG_NAME: 'Headless Inc',
        SPYGLASS_INIT_PROJECT_NAME: 'Prod',
        SPYGLASS_INIT_PROJECT_API_KEY: projectKey,
        SPYGLASS_INIT_ADMIN_API_KEY: adminKey,
        SPYGLASS_INIT_USER_EMAIL: 'ops@headless.test',
        SPYGLASS_INIT_USER_PASSWORD: 'correct horse battery',
      };
      const migrated = await runCli(['migrate'], env);
      expect(migrated.code).toBe(0);
      expect(migrated.out).toContain('0001_foundation.sql');

      const srv = await startServer(env);
      const org = await request(srv.baseUrl, 'GET', '/api/organization', { token: adminKey });
      expect(org.body.name).toBe('Headless Inc');
      const projects = await request(srv.baseUrl, 'GET', '/api/projects', { token: adminKey });
      expect(projects.body.data.map((p: { name: string }) => p.name)).toEqual(['Prod']);
      const members = await request(srv.baseUrl, 'GET', '/api/members', { token: adminKey });
      expect(members.body.data[0].email).toBe('ops@headless.test');
      srv.child.kill('SIGTERM');
      expect(await srv.exited).toBe(0);

      const again = await startServer(env);
      expect(again.output()).not.toContain('shown once');
      expect((await request(again.baseUrl, 'GET', '/api/projects', { token: adminKey })).body.data).toHaveLength(1);
      again.child.kill('SIGTERM');
      await again.exited;
    } finally {
      await adminQuery(pgTemplate!.url, `DROP DATABASE IF EXISTS ${name}`);
    }
  });
});
