import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminQuery } from '../support/global-setup.ts';
import { copyTemplateDatabase, databaseKinds, request } from '../support/harness.ts';
import { signalTree, startServer, useTmpDirs, type Running } from '../support/server-process.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { waitFor } from '../webhooks/support.ts';

/**
 * SIGKILL while spans are being ingested, webhook batches are being sent and monitor
 * evaluations are running, all at once; then a restart on the same data. Every span that was
 * acknowledged is there, every event committed with it (trace.created) reaches the receiver,
 * and every queued evaluation runs. `BENCH_ONLY=soak npm run bench` kills and restarts five times
 * (SPYGLASS_SOAK, which only that bench sets).
 */
const LONG = process.env.SPYGLASS_SOAK === '1';
const CYCLES = LONG ? 5 : 1;
const SPANS_PER_TRACE = 3;
const MONITOR = 'crash-watch';

describe.each(databaseKinds)('crash safety: SIGKILL mid-ingest, mid-dispatch and mid-evaluation (%s)', (kind) => {
  const tmp = useTmpDirs();
  let receiver: Receiver;
  let env: Record<string, string>;
  let dropDb: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    // Slow answers keep deliveries in flight when the kill comes.
    receiver = await Receiver.start();
    receiver.reply = () => ({ status: 204, delayMs: 150 });
    env = {
      SPYGLASS_DATA_DIR: tmp(),
      SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1',
      SPYGLASS_WEBHOOK_POLL_MS: '200',
      SPYGLASS_MONITOR_SETTLE_SECONDS: '0',
      LOG_LEVEL: 'warn',
    };
    if (kind === 'postgres') {
      const copy = await copyTemplateDatabase();
      env.DATABASE_URL = copy.url;
      dropDb = copy.drop;
    }
  });
  afterAll(async () => {
    await receiver.close();
    await dropDb?.();
  });

  /**
   * On PostgreSQL a killed process's claims (a batch being sent, a job running) are taken
   * over when their leases end (1 and 5 minutes); the test moves those ends to now instead of
   * waiting. On PGlite the restarted process releases them itself (it owns the database).
   */
  async function leasesRunOut() {
    if (!env.DATABASE_URL) return;
    await adminQuery(env.DATABASE_URL, `UPDATE webhook_dispatches SET claimed_until = now() WHERE status = 'sending'`);
    await adminQuery(env.DATABASE_URL, `UPDATE jobs SET locked_until = 0 WHERE locked_until IS NOT NULL AND failed_at IS NULL`);
  }

  it(`loses nothing acknowledged or committed (${CYCLES} kill${CYCLES > 1 ? 's' : ''})`, async () => {
    let server: Running = await startServer(env);
    const creds = JSON.parse(fs.readFileSync(path.join(env.SPYGLASS_DATA_DIR, 'initial-credentials.json'), 'utf8'));
    const key: string = creds.projectApiKey;
    const api = (method: string, url: string, body?: unknown) => request(server.baseUrl, method, url, { token: key, body });

    const monitor = await api('POST', '/api/monitors', { name: MONITOR, evaluator: 'llm/competitor_blocklist', settings: { competitors: ['Acme'] } });
    expect(monitor.status).toBeLessThan(300);
    const monitorId: string = monitor.body.id;
    expect((await api('POST', '/api/webhooks/v1/endpoints', { url: receiver.url, enabled_events: ['trace.created'] })).status).toBe(201);

    const acknowledged: string[] = [];
    let traceNo = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      // Two clients ingesting without pause until the kill.
      let stop = false;
      const ingest = async () => {
        while (!stop) {
          const traceId = `crash-${cycle}-${traceNo++}`;
          const now = Date.now();
          const spans = Array.from({ length: SPANS_PER_TRACE }, (_, i) => ({
            span_id: `${traceId}-s${i}`,
            parent_id: i === 0 ? null : `${traceId}-s0`,
            type: i === 0 ? 'agent' : 'llm',
            input: { type: 'text', value: `question ${traceId}` },
            output: { type: 'text', value: `Acme answers ${traceId}` },
            timestamps: { started_at: now - 100 + i, finished_at: now },
          }));
          try {
            const res = await request(server.baseUrl, 'POST', '/api/collector', { authToken: key, body: { trace_id: traceId, spans } });
            if (res.status === 200) acknowledged.push(traceId);
          } catch {
            // Killed mid-request: not acknowledged, so nothing is promised about it.
          }
        }
      };
      const clients = [ingest(), ingest()];
      // Kill once deliveries and evaluations of this cycle are under way, with ingestion still going.
      // (An evaluation of this cycle, not of this cycle's first trace: the queue holds earlier
      // cycles' backlog first, and ingest outruns evaluation on a loaded machine.)
      const cycleStarted = Date.now();
      const evaluatedThisCycle = async () =>
        ((await api('GET', `/api/monitors/${monitorId}/results?pageSize=1`)).body?.data?.[0]?.inserted_at ?? 0) >= cycleStarted;
      const sentBefore = receiver.received.length;
      await waitFor(() => receiver.received.length > sentBefore && acknowledged.length > 5 * (cycle + 1), 60_000);
      for (const deadline = Date.now() + 60_000; ; ) {
        if (await evaluatedThisCycle()) break;
        if (Date.now() > deadline) throw new Error('no evaluation ran before the kill');
        await new Promise((r) => setTimeout(r, 50));
      }
      const atKill = { acknowledged: acknowledged.length, delivered: receiver.events().length };
      signalTree(server.child.pid!, 'SIGKILL');
      await server.exited;
      stop = true;
      await Promise.all(clients);
      console.log(`crash safety (${kind}), kill ${cycle + 1}: ${atKill.acknowledged} traces acknowledged, ${atKill.delivered} events delivered so far`);

      await leasesRunOut();
      server = await startServer(env);
    }

    try {
      // Every acknowledged span is stored.
      for (const traceId of acknowledged) {
        const res = await api('GET', `/api/trace/${traceId}`);
        expect(res.status, traceId).toBe(200);
        expect(res.body.spans.map((s: { span_id: string }) => s.span_id).sort(), traceId).toEqual(
          Array.from({ length: SPANS_PER_TRACE }, (_, i) => `${traceId}-s${i}`),
        );
      }
      // Every committed event reaches the receiver (at least once).
      const delivered = () => new Set(receiver.events().filter((e) => e.type === 'trace.created').map((e) => e.data.trace_id as string));
      await waitFor(() => acknowledged.every((id) => delivered().has(id)), 120_000).catch(() => {
        throw new Error(`never delivered: ${acknowledged.filter((id) => !delivered().has(id)).join(', ')}`);
      });
      // Every queued evaluation runs.
      const pending = new Set(acknowledged);
      for (const deadline = Date.now() + 120_000; pending.size; ) {
        for (const traceId of [...pending]) {
          const res = await api('GET', `/api/trace/${traceId}`);
          if (res.body.evaluations.some((e: { name: string }) => e.name === MONITOR)) pending.delete(traceId);
        }
        if (!pending.size) break;
        if (Date.now() > deadline) throw new Error(`never evaluated: ${[...pending].join(', ')}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    } catch (err) {
      // The server's own account of a failure (a crash, a closed connection) is in its log.
      throw new Error(`${err instanceof Error ? err.stack : String(err)}\nserver log (last 4 KB):\n${server.output().slice(-4096)}`, { cause: err });
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    console.log(`crash safety (${kind}): ${acknowledged.length} traces acknowledged over ${CYCLES} kill(s), all stored, delivered and evaluated`);
  }, LONG ? 1_200_000 : 300_000);
});
