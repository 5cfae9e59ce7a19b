import { describe, expect, inject, it } from 'vitest';
import { adminQuery } from '../support/global-setup.ts';
import { copyTemplateDatabase, databaseKinds, request } from '../support/harness.ts';
import { startServer, useTmpDirs } from '../support/server-process.ts';

/**
 * /readyz follows the database without waiting in its queue: when the database goes away
 * under a running server, readiness turns 503 within about a second while liveness stays
 * 200; the server keeps running. PostgreSQL only: a PGlite database lives inside the process.
 */
describe.runIf(databaseKinds.includes('postgres'))('readiness when the database goes away (postgres)', () => {
  const tmp = useTmpDirs();

  it('/readyz answers 503 naming the database, /healthz stays 200, and the process keeps serving', async () => {
    const database = await copyTemplateDatabase();
    const server = await startServer({ SPYGLASS_DATA_DIR: tmp(), DATABASE_URL: database.url, LOG_LEVEL: 'warn' });
    try {
      const ready = await request(server.baseUrl, 'GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.checks.database).toEqual({ ok: true, detail: 'ok' });

      await adminQuery(inject('pgTemplate')!.url, `DROP DATABASE ${database.name} WITH (FORCE)`);
      const deadline = Date.now() + 10_000;
      let last = ready;
      while (last.status === 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        last = await request(server.baseUrl, 'GET', '/readyz');
      }
      expect(last.status).toBe(503);
      expect(last.headers.get('retry-after')).toBe('1');
      expect(last.body).toMatchObject({ status: 'not_ready', checks: { database: { ok: false } } });
      expect(last.body.checks.database.detail).toMatch(/the database (does not answer|has not answered)/);
      expect((await request(server.baseUrl, 'GET', '/healthz')).status).toBe(200);
      expect(server.child.exitCode).toBeNull();
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await database.drop();
    }
  }, 60_000);
});
