import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { rows } from '../src/db/index.ts';
import { percentile, pool, type BenchServer } from './lib.ts';
import { otlpRequest } from './otlp-payloads.ts';

const DAY = 86_400_000;
const SPANS_PER_REQUEST = 100;
const SPANS_PER_TRACE = 5;

export interface RetentionResult {
  spansBefore: number;
  tracesDeleted: number;
  spansLeft: number;
  sweepSeconds: number;
  baseline: { requests: number; p50: number; p95: number };
  duringSweep: { requests: number; p50: number; p95: number };
  /** p95 during the sweep over p95 without it, minus one (0.2 = 20 % slower). */
  p95Change: number;
  seedSeconds: number;
}

/**
 * The retention sweep removing `spans` old spans while ingest runs at a steady rate:
 * 1. seed: 20,000 spans through OTLP ingest (5 per trace, 200 days old), copied by SQL
 *    under new trace ids until `spans` are stored, then vacuumed and analyzed (steady state);
 * 2. baseline: `rate` requests a second of 100 fresh spans for `baselineSeconds`, latency of each;
 * 3. the project's retention set to 30 days, the sweep run while the same ingest goes on;
 *    latency of the requests sent while it ran.
 */
export async function benchRetention(s: BenchServer, opts: { spans: number; rate: number; baselineSeconds: number }): Promise<RetentionResult> {
  const db = s.db.orm;
  const projectId = s.creds.project.id;
  const seedStarted = performance.now();
  const old = Date.now() - 200 * DAY;
  const seedRequests = Math.min(200, Math.ceil(opts.spans / SPANS_PER_REQUEST));
  await pool(
    Array.from({ length: seedRequests }, (_, i) => () => post(s, otlpRequest(i * (SPANS_PER_REQUEST / SPANS_PER_TRACE), SPANS_PER_REQUEST, SPANS_PER_TRACE, old, 11))),
    4,
  );
  const seeded = seedRequests * SPANS_PER_REQUEST;
  const copies = Math.ceil(opts.spans / seeded) - 1;
  const spanColumns = await columnsOf(s, 'spans');
  const traceColumns = await columnsOf(s, 'traces');
  const renamed = (columns: string[]) => columns.map((c) => (c === 'trace_id' ? `trace_id || '-c' || g` : c)).join(', ');
  for (let from = 1; from <= copies; from += 5) {
    const to = Math.min(copies, from + 4);
    await db.execute(
      sql.raw(`INSERT INTO spans (${spanColumns.join(', ')}) SELECT ${renamed(spanColumns)} FROM spans, generate_series(${from}, ${to}) g
               WHERE project_id = '${projectId}' AND position('-c' IN trace_id) = 0`),
    );
    await db.execute(
      sql.raw(`INSERT INTO traces (${traceColumns.join(', ')}) SELECT ${renamed(traceColumns)} FROM traces, generate_series(${from}, ${to}) g
               WHERE project_id = '${projectId}' AND position('-c' IN trace_id) = 0`),
    );
  }
  await db.execute(sql`VACUUM ANALYZE spans`);
  await db.execute(sql`VACUUM ANALYZE traces`);
  const spansBefore = await count(s, 'spans');
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  let nextTrace = 0;
  const fresh = () => {
    const body = otlpRequest(nextTrace, SPANS_PER_REQUEST, SPANS_PER_TRACE, Date.now() - 60_000, 12);
    nextTrace += SPANS_PER_REQUEST / SPANS_PER_TRACE;
    return body;
  };
  // Warm-up outside the measurement.
  for (let i = 0; i < 10; i++) await post(s, fresh());
  const baseline = await steadyIngest(s, opts.rate, fresh, async () => new Promise((r) => setTimeout(r, opts.baselineSeconds * 1000)));

  const patched = await fetch(`${s.baseUrl}/api/projects/${projectId}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.creds.adminApiKey}` },
    body: JSON.stringify({ retentionDays: 30 }),
  });
  if (patched.status !== 200) throw new Error(`retention PATCH answered ${patched.status}`);
  let sweepSeconds = 0;
  let tracesDeleted = 0;
  const during = await steadyIngest(s, opts.rate, fresh, async () => {
    const t0 = performance.now();
    tracesDeleted = await s.app.services.traces.sweepRetention();
    sweepSeconds = (performance.now() - t0) / 1000;
  });
  const spansLeft = await count(s, 'spans');
  const stats = (l: number[]) => ({ requests: l.length, p50: percentile(l, 50), p95: percentile(l, 95) });
  const b = stats(baseline);
  const d = stats(during);
  return { spansBefore, tracesDeleted, spansLeft, sweepSeconds, baseline: b, duringSweep: d, p95Change: d.p95 / b.p95 - 1, seedSeconds };
}

/** Sends `rate` requests a second (not waiting for answers) while `during` runs; the latencies of those requests. */
async function steadyIngest(s: BenchServer, rate: number, body: () => Buffer, during: () => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let sending = true;
  const sender = (async () => {
    const every = 1000 / rate;
    let next = performance.now();
    while (sending) {
      const t0 = performance.now();
      const p = post(s, body()).then(() => void latencies.push(performance.now() - t0));
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
      next += every;
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    }
  })();
  try {
    await during();
  } finally {
    sending = false;
    await sender;
    await Promise.all([...inFlight]);
  }
  return latencies;
}

async function post(s: BenchServer, body: Buffer): Promise<void> {
  const res = await fetch(`${s.baseUrl}/api/otel/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${s.creds.projectApiKey}` },
    body,
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
}

async function columnsOf(s: BenchServer, table: string): Promise<string[]> {
  const found = await rows<{ column_name: string }>(
    s.db.orm,
    sql`SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table} AND is_generated = 'NEVER' ORDER BY ordinal_position`,
  );
  return found.map((c) => c.column_name);
}

async function count(s: BenchServer, table: 'spans' | 'traces'): Promise<number> {
  const [r] = await rows<{ n: number }>(s.db.orm, sql.raw(`SELECT count(*)::int AS n FROM ${table}`));
  return Number(r.n);
}
