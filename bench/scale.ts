import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, rows } from '../src/db/index.ts';
import { systemClock } from '../src/platform/clock.ts';
import { makeReplica } from '../test/support/replica.ts';
import { copyEarlier, dirtyLeft, judgeAndAnnotate } from './analytics.ts';
import { median, percentile, pool, type BenchServer } from './lib.ts';
import { otlpRequest } from './otlp-payloads.ts';
import { benchDetail, benchSearch } from './traces.ts';

const DAY = 86_400_000;

/** The search bodies of the mixed load (benchSearch's), and the analytics shapes with targets. */
const ANALYTICS_SHAPES = (end: number): Record<string, Record<string, unknown>> => ({
  '30 days, by day': { startDate: end - 30 * DAY, endDate: end },
  '30 days, by day, grouped by model': { startDate: end - 30 * DAY, endDate: end, groupBy: 'model' },
});

/**
 * One PostgreSQL project at the size a busy team reaches in weeks: `spans` spans (5 per trace)
 * over the last 30 days, a fifth of the traces evaluated, one in fifty annotated, plus one
 * 10,000-span trace. A hundredth goes through ingest (OTLP over HTTP); copies of those rows,
 * each earlier under other trace ids, fill the 30 days, each copy in its own days' partitions
 * as ingest would have stored it (loading 5M spans through HTTP takes hours on this machine
 * and measures nothing here). Then, on that data:
 * - search: the mixed queries of the traces bench, p50 and p95;
 * - analytics: 30 days by day, and grouped by model;
 * - the 10,000-span trace's detail;
 * - with a streaming replica (pg_basebackup of the server) and a second server process reading
 *   from it: the share of a mixed search and analytics load's statements that ran on the
 *   replica, counted by the process per pool and by each PostgreSQL server (transactions of the
 *   database), each less what the same process does idle for as long; and the statements
 *   that still ran on the primary, by text, during the load and while idle.
 */
export async function benchScale(s: BenchServer, pgUrl: string, opts: { spans: number; searches: number; runs: number; replicaRounds: number }) {
  const copies = Math.min(255, Math.max(1, Math.round(opts.spans / 50_000)) - 1);
  const ingested = Math.ceil(opts.spans / (copies + 1) / 100) * 100;
  const end = Date.now() - 60_000;
  const slice = (30 * DAY) / (copies + 1);
  const start = end - slice;
  const traces = ingested / 5;
  const spacing = Math.max(1, Math.floor(slice / traces));
  const t0 = performance.now();
  await pool(
    Array.from({ length: ingested / 100 }, (_, i) => async () => {
      const res = await fetch(`${s.baseUrl}/api/otel/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${s.creds.projectApiKey}` },
        body: otlpRequest(i * 20, 100, 5, start, 7, 0, spacing),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
    }),
    4,
  );
  console.error(`scale bench: ${ingested} spans ingested in ${((performance.now() - t0) / 1000).toFixed(0)} s; copying ${copies} times`);
  await copyEarlier(s, copies, slice);
  const projectId = s.creds.project.id;
  await judgeAndAnnotate(s);
  const loadSeconds = (performance.now() - t0) / 1000;
  // The big trace goes through ingest like any other (benchDetail reads it back).
  const detail = await benchDetail(s, 10_000, opts.runs);
  await s.app.services.traces.refreshStatistics();
  await s.db.orm.execute(sql`ANALYZE`);
  // The hourly rollups the background task keeps, caught up before the charts are timed.
  const r0 = performance.now();
  const hours = await s.app.services.traces.rollUp(Infinity);
  console.error(`scale bench: ${hours} hours rolled up in ${((performance.now() - r0) / 1000).toFixed(1)} s before timing (the background task rolls up the rest), ${await dirtyLeft(s)} dirty hours left`);
  const [size] = await rows<{ spans: number; traces: number }>(s.db.orm, sql`SELECT sum(span_count)::float8 AS spans, count(*)::int AS traces FROM traces WHERE project_id = ${projectId}`);
  console.error(`scale bench: ${size.traces} traces / ${size.spans} spans in ${loadSeconds.toFixed(0)} s`);

  const search = await benchSearch(s, opts.searches);
  const analytics: Record<string, { p50: number; p95: number }> = {};
  for (const [name, body] of Object.entries(ANALYTICS_SHAPES(end))) {
    const latencies: number[] = [];
    for (let i = 0; i < opts.runs; i++) {
      const q0 = performance.now();
      await timeseries(s.baseUrl, s.creds.projectApiKey, body);
      latencies.push(performance.now() - q0);
    }
    analytics[name] = { p50: median(latencies), p95: percentile(latencies, 95) };
  }
  // BENCH_SCALE_REPLICA=0: no replica (the analytics figures alone).
  const replica = process.env.BENCH_SCALE_REPLICA === '0' ? null : await replicaSplit(s, pgUrl, end, opts.replicaRounds);
  return { spans: Number(size.spans), traces: Number(size.traces), loadSeconds, search, analytics, detail, replica };
}


async function timeseries(baseUrl: string, token: string, body: Record<string, unknown>) {
  const res = await fetch(`${baseUrl}/api/analytics/timeseries`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const json = (await res.json());
  if (res.status !== 200) throw new Error(`analytics answered ${res.status}: ${JSON.stringify(json)}`);
}

/** Transactions committed in the bench's database, as one PostgreSQL server counts them. */
async function committed(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    // The cumulative statistics are a snapshot per transaction: read them fresh.
    await c.query('SELECT pg_stat_clear_snapshot()');
    const r = await c.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()');
    return Number(r.rows[0].n);
  } finally {
    await c.end();
  }
}

/**
 * A second server process on the same database with a streaming replica for its reads; a mixed
 * load of searches and analytics through it. Returns null when no replica can be made (no
 * replication connection allowed, no pg_basebackup): the row says so.
 */
async function replicaSplit(s: BenchServer, pgUrl: string, end: number, rounds: number) {
  const databaseUrl = (s.db.pool as unknown as { options: { connectionString: string } }).options.connectionString;
  let replica: Awaited<ReturnType<typeof makeReplica>>;
  try {
    replica = await makeReplica(pgUrl);
  } catch (err) {
    console.error(`scale bench: no replica (${(err as Error).message.split('\n')[0]})`);
    return null;
  }
  const replicaUrl = replica.urlFor(databaseUrl);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-bench-replica-'));
  const config = loadConfig({ SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, DATABASE_READ_URL: replicaUrl });
  const db = await openDatabase({ databaseUrl, dataDir: null, poolSize: 10, replicas: config.readReplicas });
  // What still runs on the primary, by statement text (the first 100 characters), while the load or the idle wait runs.
  const onPrimary = { load: new Map<string, number>(), idle: new Map<string, number>(), now: null as Map<string, number> | null };
  db.pool!.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (onPrimary.now) {
        const text = (typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string } | null)?.text ?? '')).replace(/\s+/g, ' ').trim().slice(0, 100);
        onPrimary.now.set(text, (onPrimary.now.get(text) ?? 0) + 1);
      }
      return query(...args);
    };
  });
  const app = await buildApp({ config, db, clock: systemClock, logger: pino({ level: 'silent' }), tokenHasher: s.tokenHasher });
  try {
    await app.http.listen({ port: 0, host: '127.0.0.1' });
    const baseUrl = `http://127.0.0.1:${(app.http.server.address() as { port: number }).port}`;
    // The replica answers once it has replayed the backup and is within the lag bound.
    const deadline = Date.now() + 120_000;
    while (!db.reads.status().every((r) => r.usable)) {
      if (Date.now() > deadline) throw new Error(`the replica did not become usable: ${JSON.stringify(db.reads.status())}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const token = s.creds.projectApiKey;
    const counts = async () => ({ app: db.reads.statements(), primary: await committed(databaseUrl), replica: await committed(replicaUrl) });
    const diff = (a: Awaited<ReturnType<typeof counts>>, b: Awaited<ReturnType<typeof counts>>) => ({
      appPrimary: (b.app.find((p) => p.pool === 'primary')?.count ?? 0) - (a.app.find((p) => p.pool === 'primary')?.count ?? 0),
      appReplica: b.app.filter((p) => p.pool !== 'primary').reduce((n, p) => n + p.count, 0) - a.app.filter((p) => p.pool !== 'primary').reduce((n, p) => n + p.count, 0),
      // Less the counting clients' own transactions (one each read).
      serverPrimary: b.primary - a.primary - 1,
      serverReplica: b.replica - a.replica - 1,
    });
    const load = async () => {
      const searchBodies = [{}, { query: 'refund policy' }, { filters: { user_id: 'user-42' } }, { sortBy: 'latency', filters: { has_error: false } }];
      for (let i = 0; i < rounds; i++) {
        for (const body of searchBodies) {
          const res = await fetch(`${baseUrl}/api/trace/search`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`search answered ${res.status}`);
        }
        for (const body of Object.values(ANALYTICS_SHAPES(end))) await timeseries(baseUrl, token, body);
      }
    };
    // What the process does idle (its pollers), over as long as the load takes, is subtracted.
    const l0 = performance.now();
    const before = await counts();
    onPrimary.now = onPrimary.load;
    await load();
    onPrimary.now = null;
    const after = await counts();
    const loadMs = performance.now() - l0;
    const busy = diff(before, after);
    const i0 = await counts();
    onPrimary.now = onPrimary.idle;
    await new Promise((r) => setTimeout(r, loadMs));
    onPrimary.now = null;
    const idle = diff(i0, await counts());
    const share = (replicaSide: number, primarySide: number, idleReplica: number, idlePrimary: number) => {
      const r = Math.max(0, replicaSide - idleReplica);
      const p = Math.max(0, primarySide - idlePrimary);
      return r + p === 0 ? null : r / (r + p);
    };
    return {
      requests: rounds * 6,
      loadSeconds: loadMs / 1000,
      busy,
      idle,
      appShare: share(busy.appReplica, busy.appPrimary, idle.appReplica, idle.appPrimary),
      serverShare: share(busy.serverReplica, busy.serverPrimary, idle.serverReplica, idle.serverPrimary),
      // Statements on the primary during the load, most first, each with its count while idle for as long.
      onPrimary: [...onPrimary.load].sort((x, y) => y[1] - x[1]).map(([statement, n]) => ({ statement, load: n, idle: onPrimary.idle.get(statement) ?? 0 })),
    };
  } finally {
    await app.http.close();
    await db.close();
    replica.remove();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
