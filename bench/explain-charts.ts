/**
 * The charts' statements on a database kept by the scale bench (BENCH_KEEP_DATABASE=1 prints its
 * URL), examined again and again without building it anew:
 *
 *   DATABASE_URL=postgres://.../spyglass_bench_xxxx node --import tsx bench/explain-charts.ts [runs]
 *
 * For the scale bench's two shapes (30 days by day, and grouped by model, ending at the last trace's
 * start plus a minute, or at CHARTS_END in epoch ms): the analytics use case's median over `runs`
 * calls (default 5, in this process, without HTTP), then EXPLAIN (ANALYZE, BUFFERS) of each
 * statement one call ran, its execution time and plan's top lines (all of it with
 * CHARTS_PLANS=1). CHARTS_ROLLUP=1 first recomputes every dirty hour. No server listens and no
 * background task runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, rows } from '../src/db/index.ts';
import { systemClock } from '../src/platform/clock.ts';
import { TokenHasher } from '../src/platform/tokens.ts';
import { median } from './lib.ts';

const DAY = 86_400_000;
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL: the kept bench database');
const runs = Number(process.argv[2] ?? '5');

// Every statement's text and values, while `recording` is set.
let recording: { text: string; values: unknown[] }[] | null = null;
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with its client below
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const [first, second] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
  // query(text, values), query({ text, values }) or query({ text }, values) (drizzle's).
  if (recording) recording.push({ text: typeof first === 'string' ? first : first.text, values: Array.isArray(second) ? second : typeof first === 'string' ? [] : (first.values ?? []) });
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-explain-'));
const config = loadConfig({ SPYGLASS_DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl });
const db = await openDatabase({ databaseUrl, dataDir: null, poolSize: 10 });
try {
  const app = await buildApp({ config, db, clock: systemClock, logger: pino({ level: 'silent' }), tokenHasher: new TokenHasher(randomBytes(32)) });
  if (process.env.CHARTS_ROLLUP === '1') {
    const r0 = performance.now();
    const hours = await app.services.traces.rollUp(Infinity);
    console.log(`rolled up ${hours} hours in ${((performance.now() - r0) / 1000).toFixed(1)} s`);
  }
  const [{ project_id: projectId, last }] = await rows<{ project_id: string; last: number }>(
    db.orm,
    sql`SELECT project_id, max(started_at)::float8 AS last FROM traces GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
  );
  const end = Number(process.env.CHARTS_END ?? Number(last) + 60_000);
  const [{ n: dirty }] = await rows<{ n: number }>(db.orm, sql`SELECT count(DISTINCT hour)::int AS n FROM trace_hours_dirty WHERE project_id = ${projectId}`);
  console.log(`project ${projectId}, end ${end} (${new Date(end).toISOString()}), ${dirty} dirty hours`);
  const shapes: Record<string, { startDate: number; endDate: number; groupBy?: "model" }> = {
    '30 days, by day': { startDate: end - 30 * DAY, endDate: end },
    '30 days, by day, grouped by model': { startDate: end - 30 * DAY, endDate: end, groupBy: 'model' },
  };
  for (const [name, body] of Object.entries(shapes)) {
    const latencies: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await app.services.analytics.timeseries(projectId, body);
      latencies.push(performance.now() - t0);
    }
    recording = [];
    await app.services.analytics.timeseries(projectId, body);
    const statements = recording.filter((s) => /^\s*(SELECT|WITH)/i.test(s.text) && /traces|trace_rollups/.test(s.text));
    recording = null;
    console.log(`\n## ${name}: median ${median(latencies).toFixed(0)} ms over ${runs} (${latencies.map((l) => l.toFixed(0)).join(', ')})`);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      // As latencyHistogramSums runs its statement.
      await client.query('SET enable_sort = off; SET jit = off');
      for (const s of statements) {
        const plan = await client.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, values: s.values });
        const lines = plan.rows.map((r) => r['QUERY PLAN']);
        const time = lines.find((l) => l.startsWith('Execution Time'));
        console.log(`\n- ${time}: ${s.text.replace(/\s+/g, ' ').slice(0, 160)}`);
        for (const l of process.env.CHARTS_PLANS === '1' ? lines : lines.slice(0, 6)) console.log(`    ${l}`);
      }
    } finally {
      await client.end();
    }
  }
} finally {
  await db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
