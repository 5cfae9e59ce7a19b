import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.ts';
import { streamBackup } from '../../src/ops/backup.ts';
import { databaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { dispatcherOf, WEBHOOK_TEST_ENV } from '../webhooks/support.ts';
import { foundIn, sendEverywhere, startMarkerModel } from './every-path.ts';
import { markers } from './markers.ts';
import { everyTableAsText } from '../support/every-table.ts';

/** Every file under a folder, searched for the needles. */
function foundInFolder(dir: string, needles: readonly string[]): string[] {
  const found = new Set<string>();
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const file = path.join(d, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.isFile()) for (const n of foundIn(fs.readFileSync(file), needles)) found.add(`${n} in ${path.relative(dir, file)}`);
    }
  };
  walk(dir);
  return [...found];
}

/** Every row of every table, as text. */
async function everyTable(t: TestApp): Promise<string> {
  return (await everyTableAsText(t.db.orm)).text;
}

/** A log sink at trace level: every line the server writes. */
function logSink() {
  const sink = { text: '' };
  const stream = new Writable({
    write(chunk, _enc, done) {
      sink.text += String(chunk);
      done();
    },
  });
  return { sink, logger: pino({ level: 'trace' }, stream) };
}

/** Turns masking on for every entity type the markers are, and a webhook endpoint for every event. */
async function prepare(t: TestApp, receiver: Receiver) {
  const privacy = await t.request('PUT', '/api/privacy/settings', { token: t.creds.adminApiKey, projectId: t.creds.project.id, body: { mode: 'mask' } });
  expect(privacy.status, privacy.text).toBe(200);
  const hook = await t.request('POST', '/api/webhooks/v1/endpoints', { token: t.creds.adminApiKey, projectId: t.creds.project.id, body: { url: receiver.url, enabled_events: ['*'] } });
  expect(hook.status, hook.text).toBe(201);
}

/** The placeholders and the record are where the values would have been. */
async function expectPlaceholders(t: TestApp, sent: Awaited<ReturnType<typeof sendEverywhere>>) {
  const key = t.creds.projectApiKey;
  const otlp = (await t.request('GET', `/api/trace/${sent.otlpTrace}`, { token: key })).body;
  expect(JSON.stringify(otlp)).toContain('<CREDIT_CARD>');
  expect(otlp.redactions.summary).toMatch(/values redacted: .*CREDIT_CARD in input/);
  const viaGrpc = (await t.request('GET', `/api/trace/${sent.grpcTrace}`, { token: key })).body;
  expect(viaGrpc.input.value).toContain('<CREDIT_CARD>');
  expect(viaGrpc.redactions.counts).toContainEqual({ field: 'attributes', entity_type: 'EMAIL_ADDRESS', count: 1 });
  const collected = (await t.request('GET', `/api/trace/${sent.collected}`, { token: key })).body;
  expect(collected.input.value).toContain('<EMAIL_ADDRESS>');
  expect(collected.redactions.counts).toContainEqual({ field: 'metadata', entity_type: 'EMAIL_ADDRESS', count: 1 });
  const records = (await t.request('GET', `/api/dataset/${sent.slug}/records`, { token: key })).body;
  expect(JSON.stringify(records)).toContain('<PHONE_NUMBER>');
  const scored = (await t.request('GET', `/api/annotations/${sent.scoredAnnotation}`, { token: key })).body.data;
  expect(scored.comment).toMatch(/^Score 1 because of Please charge card <CREDIT_CARD> and send the receipt to <EMAIL_ADDRESS> or call <PHONE_NUMBER> \(order-ref-[0-9a-f]+\)\.$/);
  expect(scored.scores).toHaveLength(1);
  const reviewed = (await t.request('GET', `/api/annotations/${sent.reviewedAnnotation}`, { token: key })).body.data;
  expect(reviewed.comment).toMatch(/^Reviewed: Please charge card <CREDIT_CARD> and send the receipt to <EMAIL_ADDRESS> or call <PHONE_NUMBER> \(order-ref-[0-9a-f]+\)\.$/);
  expect(reviewed.scores).toMatchObject([{ value: 4 }]);
  // The traces Spyglass records of its own model calls: the prompt sent and the answer, both redacted, and their record.
  const answer = 'Charged <CREDIT_CARD>; the receipt went to <EMAIL_ADDRESS>, we will call <PHONE_NUMBER>.';
  const playground = (await t.request('GET', `/api/trace/${sent.playgroundTrace}`, { token: key })).body;
  expect(playground.input.value).toContain('<CREDIT_CARD>');
  expect(playground.output.value).toBe(answer);
  expect(playground.redactions.summary).toMatch(/^6 values redacted: .*CREDIT_CARD in input.*CREDIT_CARD in output/);
  // A server run sends its rows as they are stored (redacted, and counted in the run's rows), so its trace counts the answer's values only.
  const run = (await t.request('GET', `/api/trace/${sent.runTrace}`, { token: key })).body;
  expect(run.input.value).toContain('<CREDIT_CARD>');
  expect(run.output.value).toBe(answer);
  expect(run.redactions.counts).toEqual([
    { field: 'output', entity_type: 'CREDIT_CARD', count: 1 },
    { field: 'output', entity_type: 'EMAIL_ADDRESS', count: 1 },
    { field: 'output', entity_type: 'PHONE_NUMBER', count: 1 },
  ]);
  const results = (await t.request('GET', `/api/experiments/runs/${sent.runId}/results?experimentSlug=${sent.experiment}`, { token: key })).body;
  expect(results.dataset[0].predicted.output).toBe(answer);
  const simulation = (await t.request('GET', `/api/simulations/runs/${sent.simulationRun}`, { token: key })).body;
  expect(simulation.description).toContain('<CREDIT_CARD>');
  expect(simulation.messages.map((msg: { content: string }) => msg.content)).toEqual([expect.stringContaining('<PHONE_NUMBER>'), 'Mailed <EMAIL_ADDRESS>']);
  expect(simulation.results.reasoning).toBe('It called <PHONE_NUMBER>');
}

describe('personal data sent through every path is never stored (PGlite with a data directory)', () => {
  it('not under the data folder (running and after shutdown), in any table, the server log, a backup or a webhook body; the placeholders and the record are', async () => {
    const m = markers();
    const { sink, logger } = logSink();
    const receiver = await Receiver.start();
    const { model, env } = await startMarkerModel(m);
    const t = await startApp('pglite', { persistent: true, logger, env: { ...WEBHOOK_TEST_ENV, ...env } });
    let closed = false;
    try {
      await prepare(t, receiver);
      const sent = await sendEverywhere(t, m, 'c0ffee');
      await expectPlaceholders(t, sent);
      await dispatcherOf(t).drain();
      const hooks = receiver.received.map((r) => r.body).join('\n');
      expect(hooks).toContain('trace.created');
      expect(foundIn(hooks, m.needles)).toEqual([]);

      await t.db.orm.execute(sql`CHECKPOINT`);
      const tables = await everyTable(t);
      expect(tables).toContain('<EMAIL_ADDRESS>');
      // The same search finds what is not personal data: it would find the markers.
      expect(foundIn(tables, [m.control])).toEqual([m.control]);
      expect(foundIn(tables, m.needles)).toEqual([]);
      expect(foundInFolder(t.dataDir, m.needles)).toEqual([]);
      expect(foundInFolder(t.dataDir, ['<CREDIT_CARD>', m.control]).length).toBeGreaterThan(1);

      const chunks: Buffer[] = [];
      await streamBackup(t.db, t.config, new Writable({ write: (c: Buffer, _e, done) => void (chunks.push(c), done()) }));
      const backup = gunzipSync(Buffer.concat(chunks));
      expect(foundIn(backup, ['<EMAIL_ADDRESS>', m.control])).toEqual(['<EMAIL_ADDRESS>', m.control]);
      expect(foundIn(backup, m.needles)).toEqual([]);

      await t.app.http.close();
      await t.db.close();
      closed = true;
      expect(foundInFolder(t.dataDir, m.needles)).toEqual([]);
      expect(foundInFolder(t.dataDir, [m.control]).length).toBeGreaterThan(0);
      expect(sink.text).toContain('request completed');
      expect(foundIn(sink.text, m.needles)).toEqual([]);
    } finally {
      if (!closed) {
        await t.app.http.close();
        await t.db.close();
      }
      await receiver.close();
      await model.close();
      fs.rmSync(t.dataDir, { recursive: true, force: true });
    }
  }, 360_000);
});

// On PostgreSQL when the run has one (TEST_DATABASE_URL), as every test of both databases.
for (const kind of databaseKinds.filter((k) => k === 'postgres')) describe(`personal data sent through every path is never stored (${kind})`, () => {
  it('not in a pg_dump of the database, the server log or a webhook body; the placeholders and the record are', async () => {
    const m = markers();
    const { sink, logger } = logSink();
    const receiver = await Receiver.start();
    const { model, env } = await startMarkerModel(m);
    const t = await startApp(kind, { logger, env: { ...WEBHOOK_TEST_ENV, ...env } });
    try {
      await prepare(t, receiver);
      const sent = await sendEverywhere(t, m, 'beef01');
      await expectPlaceholders(t, sent);
      await dispatcherOf(t).drain();
      expect(foundIn(receiver.received.map((r) => r.body).join('\n'), m.needles)).toEqual([]);
      const [{ name }] = await rows<{ name: string }>(t.db.orm, sql`SELECT current_database() AS name`);
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.pathname = `/${name}`;
      const dump = execFileSync('pg_dump', ['--data-only', url.toString()], { maxBuffer: 512 * 1024 * 1024 });
      expect(foundIn(dump, ['<EMAIL_ADDRESS>', m.control])).toEqual(['<EMAIL_ADDRESS>', m.control]);
      expect(foundIn(dump, m.needles)).toEqual([]);
      expect(foundIn(sink.text, m.needles)).toEqual([]);
    } finally {
      await t.close();
      await receiver.close();
      await model.close();
    }
  }, 360_000);
});
