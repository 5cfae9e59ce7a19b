import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { adminQuery, withDatabase } from '../support/global-setup.ts';
import { databaseKinds, request } from '../support/harness.ts';
import { runCliInProcess, startServer, useTmpDirs } from '../support/server-process.ts';
import { sessionOf } from '../support/sessions.ts';

const tmpDir = useTmpDirs();
const databases: string[] = [];
const pgTemplate = inject('pgTemplate');
afterAll(async () => {
  for (const name of databases) await adminQuery(pgTemplate!.url, `DROP DATABASE IF EXISTS ${name}`);
});

describe.each(databaseKinds)('spyglass users reset-password (%s)', (kind) => {
  it('prints a one-time link on the server; the locked-out admin opens it, sets a password and is signed in', async () => {
    const dataDir = tmpDir();
    const env: Record<string, string> = {
      HOME: os.tmpdir(),
      LOG_LEVEL: 'warn',
      SPYGLASS_DATA_DIR: dataDir,
      SPYGLASS_INIT_USER_EMAIL: 'root@cli.test',
      SPYGLASS_INIT_USER_PASSWORD: 'forgotten-password',
    };
    if (kind === 'postgres') {
      const name = `spyglass_cli_${randomBytes(4).toString('hex')}`;
      await adminQuery(pgTemplate!.url, `CREATE DATABASE ${name}`);
      databases.push(name);
      env.DATABASE_URL = withDatabase(pgTemplate!.url, name);
    }
    expect((await runCliInProcess(['init'], env)).code).toBe(0);

    const unknown = await runCliInProcess(['users', 'reset-password', 'nobody@cli.test'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.out).toContain('no user with e-mail nobody@cli.test');

    // Without SPYGLASS_PUBLIC_URL the link names HOST:PORT.
    const local = await runCliInProcess(['users', 'reset-password', 'root@cli.test'], env);
    expect(local.code, local.out).toBe(0);
    expect(local.out).toMatch(/^http:\/\/127\.0\.0\.1:5560\/reset-password\/[A-Za-z0-9]{48}$/m);
    const printed = await runCliInProcess(['users', 'reset-password', 'ROOT@cli.test'], { ...env, SPYGLASS_PUBLIC_URL: 'https://spyglass.example.com' });
    expect(printed.code, printed.out).toBe(0);
    const link = /^https:\/\/spyglass\.example\.com\/reset-password\/([A-Za-z0-9]{48})$/m.exec(printed.out);
    expect(link, printed.out).not.toBeNull();
    const token = link![1];
    const staleToken = /reset-password\/([A-Za-z0-9]{48})/.exec(local.out)![1];

    const srv = await startServer(env);
    try {
      // The newer link voided the older one.
      expect((await request(srv.baseUrl, 'GET', `/api/auth/password-reset/${staleToken}`)).status).toBe(404);
      const info = await request(srv.baseUrl, 'GET', `/api/auth/password-reset/${token}`);
      expect(info.body.email).toBe('root@cli.test');
      const reset = sessionOf(await request(srv.baseUrl, 'POST', `/api/auth/password-reset/${token}`, { body: { password: 'remembered-password' } }));
      expect(reset.session).toMatchObject({ user: { email: 'root@cli.test' }, role: 'ADMIN' });
      const signIn = (password: string) => request(srv.baseUrl, 'POST', '/api/auth/signin', { body: { email: 'root@cli.test', password } });
      expect((await signIn('forgotten-password')).status).toBe(401);
      expect((await signIn('remembered-password')).status).toBe(200);
      // Nothing of the link reaches the server's log.
      expect(srv.output()).not.toContain(token);
    } finally {
      srv.child.kill('SIGTERM');
      await srv.exited;
    }
    // The CLI calls (each opening the database) and the server: more than the default 30 s on a busy machine.
  }, 180_000);
});
