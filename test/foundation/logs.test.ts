import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logging.ts';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';

/** What the process's own logger writes, line by line. */
function captureLogs() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger('info', stream), text: () => lines.join('\n'), lines };
}

describe.each(appDatabaseKinds)('logs carry no secrets and no user data (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  const logs = captureLogs();
  beforeAll(async () => {
    t = await startApp(kind, { logger: logs.logger });
    key = t.creds.projectApiKey;
  });
  afterAll(() => t.close());

  it('share tokens never appear in access-log URLs; query values neither', async () => {
    const now = Date.now();
    const trace = {
      trace_id: 'trace-logged',
      spans: [{ span_id: 's1', type: 'llm', timestamps: { started_at: now - 1000, finished_at: now } }],
    };
    expect((await t.request('POST', '/api/collector', { authToken: key, body: trace })).status).toBe(200);
    const shared = await t.request('POST', '/api/trace/trace-logged/share', { token: key });
    const token = (shared.body.path as string).split('/').pop()!;
    expect((await t.request('GET', `/api/share/${token}`)).status).toBe(200);
    await t.request('GET', `/share/${token}`, { headers: { accept: 'text/html' } });
    await t.request('GET', `/api/annotations?anchor=secret-query-value`, { token: key });

    const text = logs.text();
    expect(text).toContain('/api/share/[redacted]');
    expect(text).toContain('/share/[redacted]');
    expect(text).toContain('/api/annotations?anchor');
    expect(text).not.toContain(token);
    expect(text).not.toContain('secret-query-value');
  });

  it('a failed statement logs its SQL state and statement, not its parameters or the row', async () => {
    const marker = 'user-data-4f1c9a';
    // A check the database enforces makes the INSERT fail the way a bug would: a 500.
    await t.db.orm.execute(sql.raw(`ALTER TABLE annotations ADD CONSTRAINT no_marker CHECK (comment NOT LIKE '%${marker}%')`));
    try {
      const res = await t.request('POST', '/api/annotations/trace/trace-logged', {
        token: key,
        body: { comment: `please keep ${marker} private`, isThumbsUp: true, email: 'someone@example.com' },
      });
      expect(res.status).toBe(500);
      expect(JSON.stringify(res.body)).not.toContain(marker);
    } finally {
      await t.db.orm.execute(sql.raw('ALTER TABLE annotations DROP CONSTRAINT no_marker'));
    }
    const failure = logs.lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request failed');
    expect(failure, logs.text()).toBeDefined();
    const text = JSON.stringify(failure);
    expect(text).toContain('no_marker');
    expect(text).toContain('23514'); // check_violation
    expect(text).not.toContain(marker);
    expect(text).not.toContain('someone@example.com');
  });
});
