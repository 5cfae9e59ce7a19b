import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { DAY_MS, DayPartitions, dayOf } from '../src/db/day-partitions.ts';
import { openDatabase, rows, type Database } from '../src/db/index.ts';
import { listMigrations, migrate } from '../src/db/migrate.ts';
import { systemClock } from '../src/platform/clock.ts';
import { TokenHasher } from '../src/platform/tokens.ts';
import { traceSearchSchema } from '../src/modules/traces/index.ts';
import { admin, median } from './lib.ts';

/**
 * Day partitions at size, on PostgreSQL (rows written by SQL: their shape is what counts here,
 * and loading millions of spans through HTTP takes hours on this machine):
 * - conversion: an installation made before day partitions (migrations up to 0068) holding
 *   `spans` spans (5 per trace, over 30 days), a fifth of the traces evaluated, a day of outbox
 *   events; the remaining migrations run and are timed; then the row counts, every index of the
 *   old tables (on the partitioned ones now) and a search's answer are checked against before;
 * - day drop: `spans` spans over 30 whole days in day partitions (with evaluations and
 *   annotations); retention set so that the oldest day expires, the sweep timed (what other
 *   modules keep of the day, then its partitions), and the DROP transaction alone; three days in turn.
 */

const PROJECT = 'proj_partitions_bench';
const SPANS_PER_TRACE = 5;


async function freshDatabase(pgUrl: string, prefix: string) {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await admin(pgUrl, `CREATE DATABASE ${name}`);
  const u = new URL(pgUrl);
  u.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: u.toString(), dataDir: null, poolSize: 4 });
  return { db, url: u.toString(), drop: async () => { await db.close(); await admin(pgUrl, `DROP DATABASE IF EXISTS ${name}`); } };
}

/** Traces `first`..`first + count - 1`, each at `startExpr(g)` (ms), as SQL select lists. */
function traceRows(withDay: boolean, ts: string) {
  return {
    traces: `INSERT INTO traces (project_id, trace_id, started_at, finished_at, inserted_at, updated_at, input, output, user_id, span_count, total_time_ms,
               prompt_tokens, completion_tokens, total_cost, models, normalized_models, search_text${withDay ? ', day' : ''})
             SELECT '${PROJECT}', lpad(to_hex(g), 32, '0'), ts, ts + 1500, ts, ts, 'question ' || g, 'answer ' || g, 'user-' || (g % 500), ${SPANS_PER_TRACE}, 1500,
               100, 50, 0.001, '{gpt-4o}', '{gpt-4o}', 'question ' || g || ' answer ' || g${withDay ? ', floor(ts / 86400000.0)::int' : ''}
             FROM (SELECT g, ${ts} AS ts FROM generate_series($1::bigint, $2::bigint) g) x WHERE ts IS NOT NULL`,
    spans: `INSERT INTO spans (project_id, trace_id, span_id, parent_id, name, type, started_at, finished_at, inserted_at, updated_at, data, input_text, output_text${withDay ? ', day' : ''})
             SELECT '${PROJECT}', lpad(to_hex(g), 32, '0'), lpad(to_hex(g * 8 + k), 16, '0'), CASE WHEN k > 0 THEN lpad(to_hex(g * 8), 16, '0') END,
               'step ' || k, CASE WHEN k = 1 THEN 'llm' ELSE 'span' END, ts + k * 100, ts + k * 100 + 200, ts, ts, '{}'::json, 'question ' || g, 'answer ' || g
               ${withDay ? ', floor(ts / 86400000.0)::int' : ''}
             FROM (SELECT g, ${ts} AS ts FROM generate_series($1::bigint, $2::bigint) g) x, generate_series(0, ${SPANS_PER_TRACE - 1}) k WHERE ts IS NOT NULL`,
    evaluations: `INSERT INTO evaluations (id, project_id, trace_id, evaluator, name, status, passed, score, settings, is_guardrail, inserted_at, updated_at${withDay ? ', day' : ''})
             SELECT 'eval_' || g, '${PROJECT}', lpad(to_hex(g), 32, '0'), 'pii/pii_detection', 'PII', 'processed', g % 10 <> 0, 1, '{}', false, ts, ts
               ${withDay ? ', floor(ts / 86400000.0)::int' : ''}
             FROM (SELECT g, ${ts} AS ts FROM generate_series($1::bigint, $2::bigint) g) x WHERE ts IS NOT NULL AND g % 5 = 0`,
    annotations: `INSERT INTO annotations (id, project_id, trace_id, comment, is_thumbs_up)
             SELECT 'ann_' || g, '${PROJECT}', lpad(to_hex(g), 32, '0'), 'bench', g % 3 <> 0
             FROM (SELECT g, ${ts} AS ts FROM generate_series($1::bigint, $2::bigint) g) x WHERE ts IS NOT NULL AND g % 50 = 1`,
  };
}

/** Writes traces 1..n (and their spans, evaluations, annotations) in chunks, each statement with its own transaction. */
async function fill(db: Database, n: number, withDay: boolean, ts: string, progress: string) {
  const statements = traceRows(withDay, ts);
  const chunk = 50_000;
  const t0 = performance.now();
  for (let first = 1; first <= n; first += chunk) {
    const last = Math.min(n, first + chunk - 1);
    for (const text of Object.values(statements)) await db.pool!.query(text, [first, last]);
    if ((last / chunk) % 4 === 0 || last === n) console.error(`${progress}: ${last.toLocaleString('en')} of ${n.toLocaleString('en')} traces in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
}

async function organization(db: Database, retentionDays: number | null) {
  await db.pool!.query(`INSERT INTO organizations (id, name) VALUES ('org_partitions_bench', 'bench')`);
  await db.pool!.query(`INSERT INTO projects (id, organization_id, name, retention_days) VALUES ($1, 'org_partitions_bench', 'bench', $2)`, [PROJECT, retentionDays]);
}

async function counts(db: Database) {
  const out: Record<string, number> = {};
  for (const table of ['traces', 'spans', 'evaluations', 'events', 'annotations']) {
    const [r] = await rows<{ n: number }>(db.orm, sql.raw(`SELECT count(*)::int AS n FROM ${table}`));
    out[table] = Number(r.n);
  }
  return out;
}

async function indexNames(db: Database) {
  const found = await rows<{ t: string; i: string }>(
    db.orm,
    sql`SELECT tablename AS t, indexname AS i FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('traces', 'spans', 'evaluations', 'events') ORDER BY 1, 2`,
  );
  return found.map((r) => `${r.t}.${r.i}`);
}

async function startApp(db: Database, url: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-bench-partitions-'));
  const config = loadConfig({ SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: url });
  const app = await buildApp({ config, db, clock: systemClock, logger: pino({ level: 'silent' }), tokenHasher: new TokenHasher(randomBytes(32)) });
  return { app, close: () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}

export interface ConversionResult {
  spans: number;
  before: Record<string, number>;
  after: Record<string, number>;
  migrations: string[];
  seconds: number;
  indexesBefore: string[];
  indexesMissing: string[];
  searchSame: boolean;
  searchHits: number;
  partitions: Record<string, number>;
  fillSeconds: number;
}

/** An unpartitioned installation at `spans` spans converted in place by the migrations. */
export async function benchConversion(pgUrl: string, spans: number): Promise<ConversionResult> {
  const { db, url, drop } = await freshDatabase(pgUrl, 'h3_bench_conversion');
  try {
    const all = listMigrations();
    await migrate(db, all.filter((m) => m.name < '0069'));
    await organization(db, null);
    const traces = Math.round(spans / SPANS_PER_TRACE);
    const end = Date.now();
    const f0 = performance.now();
    // 30 days up to now; a day of outbox events (one per trace of the last day).
    await fill(db, traces, false, `(${end - 30 * DAY_MS}::bigint + g * ${Math.floor((30 * DAY_MS) / traces)}::bigint)`, 'conversion bench: fill');
    await db.pool!.query(`INSERT INTO events (id, organization_id, project_id, type, schema_version, data, created_at)
      SELECT 'evt_' || trace_id, 'org_partitions_bench', project_id, 'trace.created', '1', jsonb_build_object('traceId', trace_id), to_timestamp(started_at / 1000.0)
      FROM traces WHERE started_at >= ${end - DAY_MS}`);
    await db.pool!.query('VACUUM ANALYZE');
    const fillSeconds = (performance.now() - f0) / 1000;
    const before = await counts(db);
    const indexesBefore = await indexNames(db);
    // The search to answer the same after: a user's newest 100 traces.
    const expected = (
      await rows<{ trace_id: string }>(db.orm, sql`SELECT trace_id FROM traces WHERE project_id = ${PROJECT} AND user_id = 'user-7' ORDER BY started_at DESC, trace_id DESC LIMIT 100`)
    ).map((r) => r.trace_id);
    const [{ n: expectedHits }] = await rows<{ n: number }>(db.orm, sql`SELECT count(*)::int AS n FROM traces WHERE project_id = ${PROJECT} AND user_id = 'user-7'`);

    console.error(`conversion bench: ${before.spans.toLocaleString('en')} spans; converting`);
    const m0 = performance.now();
    const migrations = await migrate(db, all);
    const seconds = (performance.now() - m0) / 1000;
    const after = await counts(db);
    const indexesAfter = new Set(await indexNames(db));
    const partitions: Record<string, number> = {};
    for (const table of ['traces', 'spans', 'evaluations', 'events']) {
      const [r] = await rows<{ n: number }>(db.orm, sql`SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = to_regclass(${table})`);
      partitions[table] = Number(r.n);
    }
    const { app, close } = await startApp(db, url);
    let searchSame = false;
    let searchHits = 0;
    try {
      // The search's own contract (the body of POST /api/trace/search), through the traces module.
      const search = traceSearchSchema.parse({ filters: { user_id: 'user-7' } });
      const found = await app.services.traces.matching(PROJECT, search, 100);
      searchSame = JSON.stringify(found) === JSON.stringify(expected);
      const all7 = await app.services.traces.matching(PROJECT, search, 100_000);
      searchHits = all7.length;
      searchSame &&= searchHits === Number(expectedHits);
    } finally {
      await app.http.close();
      close();
    }
    return {
      spans: before.spans,
      before,
      after,
      migrations,
      seconds,
      indexesBefore,
      // events' unique id carries the day now (0070): events_id_key became events_id_day_key.
      indexesMissing: indexesBefore.filter((i) => !indexesAfter.has(i === 'events.events_id_key' ? 'events.events_id_day_key' : i)),
      searchSame,
      searchHits,
      partitions,
      fillSeconds,
    };
  } finally {
    await drop();
  }
}

export interface DayDropResult {
  spans: number;
  traces: number;
  /** Per day dropped: the retention sweep (the day's annotations and shares, then its partitions) and the DROP transaction alone, ms. */
  sweepsMs: number[];
  dropsMs: number[];
  tracesPerDay: number;
  sweepMedianMs: number;
  dropMedianMs: number;
  fillSeconds: number;
}

/** `spans` spans over 30 whole days in day partitions; the oldest days dropped by retention, one at a time. */
export async function benchDayDrop(pgUrl: string, spans: number, daysDropped = 3): Promise<DayDropResult> {
  const { db, url, drop } = await freshDatabase(pgUrl, 'h3_bench_daydrop');
  try {
    await migrate(db);
    await organization(db, null);
    const traces = Math.round(spans / SPANS_PER_TRACE);
    const now = Date.now();
    const today = dayOf(now);
    const first = today - 30;
    await new DayPartitions(db, ['traces', 'spans', 'evaluations']).ensure(Array.from({ length: 34 }, (_, i) => first + i));
    // 30 whole days before today, evenly; the days the sweeps will reach stop short of their cutoffs
    // (no trace of a kept day is deleted row by row: the sweep measured is the days' drop).
    const f0 = performance.now();
    const step = (30 * DAY_MS) / traces;
    const ts = `(${first * DAY_MS}::bigint + floor(g * ${step})::bigint)`;
    // Each sweep's cutoff falls at this time of day (plus the bench's own duration, 3 h at most).
    const cutoffTime = Math.min(DAY_MS, (now % DAY_MS) + 3 * 3_600_000);
    const guarded = `CASE WHEN ${ts} >= ${(first + 1) * DAY_MS}::bigint AND ${ts} < ${(first + 1 + daysDropped) * DAY_MS}::bigint
        AND ${ts} % ${DAY_MS}::bigint < ${cutoffTime}::bigint THEN NULL ELSE ${ts} END`;
    await fill(db, traces, true, guarded, 'day drop bench: fill');
    await db.pool!.query('VACUUM ANALYZE');
    const fillSeconds = (performance.now() - f0) / 1000;
    const [size] = await rows<{ spans: number; traces: number }>(db.orm, sql`SELECT sum(span_count)::float8 AS spans, count(*)::int AS traces FROM traces`);
    const [{ n: perDay }] = await rows<{ n: number }>(db.orm, sql`SELECT count(*)::int AS n FROM traces WHERE day = ${first}`);
    console.error(`day drop bench: ${size.spans.toLocaleString('en')} spans, ${size.traces.toLocaleString('en')} traces, ${perDay} traces on the oldest day`);

    const { app, close } = await startApp(db, url);
    const sweepsMs: number[] = [];
    const dropsMs: number[] = [];
    try {
      const days = app.services.traces.ctx.days;
      const dropDay = days.drop.bind(days);
      days.drop = async (day, droppable) => {
        const d0 = performance.now();
        const dropped = await dropDay(day, droppable);
        dropsMs.push(performance.now() - d0);
        return dropped;
      };
      for (let k = 0; k < daysDropped; k++) {
        // Retention of 30 - k - 1 days: the day `first + k` ends before the cutoff, the next one after it.
        await db.pool!.query('UPDATE projects SET retention_days = $1 WHERE id = $2', [29 - k, PROJECT]);
        const s0 = performance.now();
        await app.services.traces.sweepRetention();
        sweepsMs.push(performance.now() - s0);
        const [{ n: left }] = await rows<{ n: number }>(db.orm, sql`SELECT count(*)::int AS n FROM pg_class WHERE relname = ${`traces_d${new Date((first + k) * DAY_MS).toISOString().slice(0, 10).replace(/-/g, '')}`}`);
        if (Number(left) !== 0) throw new Error(`day ${first + k} was not dropped`);
      }
    } finally {
      await app.http.close();
      close();
    }
    return {
      spans: Number(size.spans),
      traces: Number(size.traces),
      tracesPerDay: Number(perDay),
      sweepsMs,
      dropsMs,
      sweepMedianMs: median(sweepsMs),
      dropMedianMs: median(dropsMs),
      fillSeconds,
    };
  } finally {
    await drop();
  }
}
