import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyTemplateDatabase, databaseKinds, request, startApp, type TestApp } from '../support/harness.ts';
import { startServer, useTmpDirs } from '../support/server-process.ts';
import { Receiver } from './receiver.ts';
import { waitFor } from './support.ts';

/**
 * The dispatcher wakes when a transaction that wrote events commits, not when its poll comes
 * round: here the poll is a minute (the longest allowed), so only the wake-up can deliver within the wait.
 */
const MINUTE = '60000';

describe.each(databaseKinds)('webhook dispatcher wakes on commit (%s)', (kind) => {
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startApp(kind, { env: { SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1', SPYGLASS_WEBHOOK_POLL_MS: MINUTE } });
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('an event committed in this process is delivered without waiting for the poll', async () => {
    const key = t.creds.projectApiKey;
    const created = await t.request('POST', '/api/webhooks/v1/endpoints', { token: key, body: { url: receiver.url, enabled_events: ['annotation.*', 'trace.created'] } });
    expect(created.status, created.text).toBe(201);
    for (let i = 0; i < 3; i++) {
      expect((await t.request('POST', `/api/annotations/trace/wake-${i}`, { token: key, body: { comment: `c${i}`, isThumbsUp: true } })).status).toBe(200);
      await waitFor(() => receiver.events().filter((e) => e.type === 'annotation.created').length === i + 1, 15_000);
    }
    // Ingestion writes its events in the summaries statement: those wake the dispatcher too.
    const now = Date.now();
    const trace = { trace_id: 'wake-trace', spans: [{ span_id: 's1', type: 'span', timestamps: { started_at: now - 10, finished_at: now } }] };
    expect((await t.request('POST', '/api/collector', { authToken: key, body: trace })).status).toBe(200);
    await waitFor(() => receiver.events().some((e) => e.type === 'trace.created' && e.data.trace_id === 'wake-trace'), 15_000);
  });

  it('a write refused before it commits sends nothing', async () => {
    const before = receiver.events().length;
    // An annotation on a trace id the route refuses: no transaction commits, no event exists.
    expect((await t.request('POST', `/api/annotations/trace/${'x'.repeat(300)}`, { token: t.creds.projectApiKey, body: { comment: 'c', isThumbsUp: true } })).status).toBe(400);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.events().length).toBe(before);
  });
});

describe.runIf(databaseKinds.includes('postgres'))('webhook dispatcher wakes on another process\'s commit (PostgreSQL, LISTEN/NOTIFY)', () => {
  const tmp = useTmpDirs();
  let receiver: Receiver;
  let databaseUrl: string;
  let dropDb: () => Promise<void>;
  beforeAll(async () => {
    receiver = await Receiver.start();
    ({ url: databaseUrl, drop: dropDb } = await copyTemplateDatabase());
  });
  afterAll(async () => {
    await receiver.close();
    await dropDb?.();
  });

  it('an API-only process writes, the dispatching process delivers at once', async () => {
    const dataDir = tmp();
    const env = {
      DATABASE_URL: databaseUrl,
      SPYGLASS_DATA_DIR: dataDir,
      SPYGLASS_TOKEN_HASH_KEY: randomBytes(32).toString('hex'),
      SPYGLASS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1',
    };
    const dispatching = await startServer({ ...env, SPYGLASS_WEBHOOK_POLL_MS: MINUTE });
    const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    const apiOnly = await startServer({ ...env, SPYGLASS_DATA_DIR: tmp(), SPYGLASS_WEBHOOK_POLL_MS: '0' });
    try {
      const key = creds.projectApiKey as string;
      const created = await request(apiOnly.baseUrl, 'POST', '/api/webhooks/v1/endpoints', { token: key, body: { url: receiver.url, enabled_events: ['annotation.created'] } });
      expect(created.status, created.text).toBe(201);
      for (let i = 0; i < 3; i++) {
        const res = await request(apiOnly.baseUrl, 'POST', `/api/annotations/trace/cross-${i}`, { token: key, body: { comment: `c${i}`, isThumbsUp: true } });
        expect(res.status, res.text).toBe(200);
        await waitFor(() => receiver.events().length === i + 1, 15_000);
      }
    } finally {
      dispatching.child.kill('SIGTERM');
      apiOnly.child.kill('SIGTERM');
      await Promise.all([dispatching.exited, apiOnly.exited]);
    }
  }, 120_000);
});
