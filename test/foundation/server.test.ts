import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { adminQuery, withDatabase } from '../support/global-setup.ts';
import { request } from '../support/harness.ts';
import { BIN, freePort, NODE_FLAGS, runCli, signalTree, startServer, useTmpDirs } from '../support/server-process.ts';

const tmpDir = useTmpDirs();

describe('the server process (PGlite in a data directory)', { timeout: 120_000 }, () => {
  it('first start creates and prints credentials once; a restart keeps them and creates nothing', async () => {
    const dataDir = tmpDir();
    const first = await startServer({ SPYGLASS_DATA_DIR: dataDir });
    const file = path.join(dataDir, 'initial-credentials.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const creds = JSON.parse(fs.readFileSync(file, 'utf8'));
    // stdout is a pipe here, as under a log collector: the secrets stay in the 0600 file,
    // and the output says where it is.
    expect(first.output()).not.toContain('These credentials are shown once');
    expect(first.output()).not.toContain(creds.adminApiKey);
    expect(first.output()).not.toContain(creds.user.password);
    expect(first.output()).toContain(`the credentials are in ${file}`);
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
    expect(again.output()).not.toContain('first start');
    const list = await request(again.baseUrl, 'GET', '/api/projects', { token: creds.adminApiKey });
    expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['My Project', 'Kept']);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  });

  it('on a terminal, the first start shows the credentials box', async () => {
    const dataDir = tmpDir();
    const port = await freePort();
    // script(1) gives the server a pseudo-terminal as stdout, as an interactive `npm start` has.
    const child = spawn('script', ['-qfec', `"${process.execPath}" ${NODE_FLAGS.join(' ')} "${BIN}" serve`, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), SPYGLASS_OTLP_GRPC_PORT: 'off', SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const deadline = Date.now() + 60_000;
    while (!out.includes('Try: curl') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    expect(out).toContain('These credentials are shown once');
    expect(out).toContain(creds.adminApiKey);
    expect(out).toContain(creds.user.password);
    signalTree(child.pid!, 'SIGTERM');
    await exited;
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
      socket.on('data', (d: Buffer) => (data += d.toString('utf8')));
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
describe.runIf(pgTemplate)('the server process on PostgreSQL', { timeout: 120_000 }, () => {
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
