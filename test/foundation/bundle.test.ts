import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { adminQuery, withDatabase } from '../support/global-setup.ts';
import { request } from '../support/harness.ts';
import { runCli, startServer, useTmpDirs } from '../support/server-process.ts';

/**
 * The server as `npm ci` leaves it: bin/spyglass.mjs running the bundle in dist/server
 * (scripts/build-server.mjs), not the sources. SPYGLASS_RUN_FROM=bundle makes the bin refuse
 * to fall back to tsx, so each process here ran the bundle, its PGlite worker included. What
 * could differ from the sources: files found relative to the code (web app, PGlite template,
 * migrations), the worker's entry, and the parts loaded on first use.
 */
const tmpDir = useTmpDirs();
const pgTemplate = inject('pgTemplate');
const fromBundle = { SPYGLASS_RUN_FROM: 'bundle' };

beforeAll(() => {
  // `prepare` built it; after an edit to src/ it is rebuilt here (in a second or so).
  execFileSync(process.execPath, [path.resolve('scripts/build-server.mjs'), '--if-stale'], { stdio: 'inherit' });
}, 120_000);

describe('the bundled server (dist/server)', { timeout: 120_000 }, () => {
  it('starts on an empty data directory, ingests and reads back a trace, runs the parts loaded on first use, serves the web app', async () => {
    const dataDir = tmpDir();
    const srv = await startServer({ ...fromBundle, SPYGLASS_DATA_DIR: dataDir });
    try {
      expect((await request(srv.baseUrl, 'GET', '/healthz')).status).toBe(200);
      const ready = await request(srv.baseUrl, 'GET', '/readyz');
      expect([ready.status, ready.body.checks.database.ok]).toEqual([200, true]);
      const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
      const key = creds.projectApiKey as string;

      // No usage in the span: the tokenizer (its ranks loaded on first use) estimates it.
      const sent = await request(srv.baseUrl, 'POST', '/api/collector', {
        token: key,
        body: {
          trace_id: 'trace-bundle',
          spans: [
            {
              span_id: 's1',
              type: 'llm',
              model: 'gpt-4o',
              input: { type: 'chat_messages', value: [{ role: 'user', content: 'hello world' }] },
              output: { type: 'text', value: 'hello world' },
              timestamps: { started_at: 1_763_812_800_000, finished_at: 1_763_812_800_010 },
            },
          ],
        },
      });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const trace = await request(srv.baseUrl, 'GET', '/api/trace/trace-bundle', { token: key });
      expect(trace.status).toBe(200);
      expect(trace.body.spans[0].metrics).toMatchObject({ tokens_estimated: true, prompt_tokens: 9, completion_tokens: 2 });

      // PII detection: the phone-number library, the NLP lexicon and the gazetteers load on first use.
      const pii = await request(srv.baseUrl, 'POST', '/api/evaluations/pii/pii_detection/evaluate', {
        token: key,
        body: {
          data: { output: 'Call Maria Garcia in Lappeenranta at +1 415 555 0132 or maria@example.com.' },
          settings: { entities: { person: true, location: true, phone_number: true, email_address: true } },
        },
      });
      expect(pii.status, JSON.stringify(pii.body)).toBe(200);
      expect(pii.body[0]).toMatchObject({ status: 'processed', passed: false });
      expect(pii.body[0].details).toMatch(/PHONE_NUMBER/);
      expect(pii.body[0].details).toMatch(/EMAIL_ADDRESS/);
      expect(pii.body[0].details).toMatch(/PERSON/);
      expect(pii.body[0].details).toMatch(/LOCATION/);

      // The web app, found from dist/server as from src/.
      const page = await fetch(`${srv.baseUrl}/signin`, { headers: { accept: 'text/html' } });
      expect([page.status, (await page.text()).startsWith('<!doctype html>')]).toEqual([200, true]);

      // A backup while it serves, over the data directory's lock socket.
      const file = path.join(tmpDir(), 'backup.tar.gz');
      const backup = await runCli(['backup', file], { ...fromBundle, SPYGLASS_DATA_DIR: dataDir });
      expect(backup.code, backup.out).toBe(0);
      expect(backup.out).toContain('from the running server');
    } finally {
      srv.child.kill('SIGTERM');
      expect(await srv.exited).toBe(0);
    }

    // The commands run from the bundle too, on the stopped installation.
    const migrate = await runCli(['migrate'], { ...fromBundle, SPYGLASS_DATA_DIR: dataDir });
    expect([migrate.code, migrate.out]).toEqual([0, expect.stringContaining('migrations are up to date')]);
    const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    const reset = await runCli(['users', 'reset-password', creds.user.email], { ...fromBundle, SPYGLASS_DATA_DIR: dataDir });
    expect(reset.code, reset.out).toBe(0);
    expect(reset.out).toMatch(/\/reset-password\/[A-Za-z0-9]{48}$/m);

    if (!pgTemplate) return;
    const name = `spyglass_bundle_${randomBytes(4).toString('hex')}`;
    await adminQuery(pgTemplate.url, `CREATE DATABASE ${name}`);
    try {
      const moved = await runCli(['move-to-postgres', withDatabase(pgTemplate.url, name)], { ...fromBundle, SPYGLASS_DATA_DIR: dataDir });
      expect(moved.code, moved.out).toBe(0);
      expect(moved.out).toContain('every row count and checksum matches');
    } finally {
      await adminQuery(pgTemplate.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  });

  it('init sets up an empty data directory', async () => {
    const init = await runCli(['init'], { ...fromBundle, SPYGLASS_DATA_DIR: tmpDir(), SPYGLASS_INIT_USER_EMAIL: 'root@bundle.test', SPYGLASS_INIT_USER_PASSWORD: 'bundle-password' });
    expect(init.code, init.out).toBe(0);
    expect(init.out).toContain('first start: organization, project, admin user and keys created');
  });
});
