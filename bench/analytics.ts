import { sql } from 'drizzle-orm';
import { DayPartitions, dayOf } from '../src/db/day-partitions.ts';
import { rows } from '../src/db/index.ts';
import { median, percentile, pool, type BenchServer } from './lib.ts';
import { otlpRequest } from './otlp-payloads.ts';

const DAY = 86_400_000;

/**
 * The analytics dashboard's aggregate route on a project holding `spans` spans (5 per
 * trace) spread evenly over the last 30 days, a fifth of the traces evaluated and one in
 * fifty annotated. Each query shape runs `runs` times; the 30-day overview is the headline.
 */
export async function benchAnalytics(s: BenchServer, opts: { spans: number; runs: number; clients: number }) {
  const spansPerRequest = 100;
  // A tenth goes through ingest (OTLP over HTTP) into the last 3 days; nine copies of those
  // rows, each 3 days earlier under other trace ids, fill the 30 days (loading all of it
  // through HTTP takes a quarter of an hour on a busy 2-core machine and measures nothing here).
  const copies = 9;
  const ingested = Math.ceil(opts.spans / (copies + 1));
  const traces = ingested / 5;
  const end = Date.now() - 60_000;
  const slice = 3 * DAY;
  const start = end - slice;
  const spacing = Math.floor(slice / traces);
  const requests = Math.ceil(ingested / spansPerRequest);
  const t0 = performance.now();
  await pool(
    Array.from({ length: requests }, (_, i) => async () => {
      const res = await fetch(`${s.baseUrl}/api/otel/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${s.creds.projectApiKey}` },
        body: otlpRequest(i * (spansPerRequest / 5), spansPerRequest, 5, start, 7, 0, spacing),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
    }),
    opts.clients,
  );
  const loadSeconds = (performance.now() - t0) / 1000;
  console.error(`analytics bench (${s.kind}): ${ingested} spans ingested in ${loadSeconds.toFixed(0)} s; copying`);
  await copyEarlier(s, copies, slice);
  const projectId = s.creds.project.id;
  await judgeAndAnnotate(s);
  await s.app.services.traces.refreshStatistics();
  // The hourly rollups the background task keeps, caught up before the charts are timed.
  const r0 = performance.now();
  const hours = await s.app.services.traces.rollUp(Infinity);
  console.error(`analytics bench (${s.kind}): ${hours} hours rolled up in ${((performance.now() - r0) / 1000).toFixed(1)} s before timing (the background task rolls up the rest), ${await dirtyLeft(s)} dirty hours left`);
  await s.db.orm.execute(sql`ANALYZE evaluations, annotations`);
  const [{ n }] = await rows<{ n: number }>(s.db.orm, sql`SELECT sum(span_count)::int AS n FROM traces WHERE project_id = ${projectId} AND started_at >= ${end - 30 * DAY}`);

  const range = { startDate: end - 30 * DAY, endDate: end };
  const shapes: Record<string, Record<string, unknown>> = {
    '30 days, by day': { ...range },
    '30 days, by day, group by model': { ...range, groupBy: 'model' },
    '30 days, by day, group by user (500 users)': { ...range, groupBy: 'user' },
    '30 days, by hour (720 buckets)': { ...range, interval: 'hour' },
    '30 days, filtered (user, has_error: false)': { ...range, filters: { user_id: ['user-1', 'user-2', 'user-3'], has_error: false } },
    '7 days, by hour': { startDate: end - 7 * DAY, endDate: end },
  };
  const results: Record<string, { p50: number; p95: number }> = {};
  let tracesSeen = 0;
  for (const [name, body] of Object.entries(shapes)) {
    const latencies: number[] = [];
    for (let i = 0; i < opts.runs; i++) {
      const q0 = performance.now();
      const res = await fetch(`${s.baseUrl}/api/analytics/timeseries`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.creds.projectApiKey}` },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { totals: { traces: number } };
      if (res.status !== 200) throw new Error(`analytics answered ${res.status}: ${JSON.stringify(json)}`);
      latencies.push(performance.now() - q0);
      if (name === '30 days, by day') tracesSeen = json.totals.traces;
    }
    results[name] = { p50: median(latencies), p95: percentile(latencies, 95) };
    console.error(`analytics bench (${s.kind}): ${name}: median ${results[name].p50.toFixed(0)} ms`);
  }
  return { spans: Number(n), traces: tracesSeen, loadSeconds, results };
}

/**
 * Copies every trace row (and span row, unless `tables` says otherwise) of the project `copies` times, each copy `shiftMs` earlier
 * than the last, under new trace ids, each copy in the day partitions its shifted start time
 * says (as ingest would have stored it: a trace and its spans in the trace's first day).
 */
export async function copyEarlier(s: BenchServer, copies: number, shiftMs: number, tables: readonly ('traces' | 'spans')[] = ['traces', 'spans']) {
  const projectId = s.creds.project.id;
  const [{ lo, hi }] = await rows<{ lo: number; hi: number }>(s.db.orm, sql`SELECT min(started_at)::float8 AS lo, max(started_at)::float8 AS hi FROM traces WHERE project_id = ${projectId}`);
  const days = new Set<number>();
  for (let k = 1; k <= copies; k++) for (let d = dayOf(lo - k * shiftMs); d <= dayOf(hi - k * shiftMs); d++) days.add(d);
  await new DayPartitions(s.db, ['traces', 'spans', 'evaluations']).ensure(days);
  const day = (startedAt: string) => `floor((${startedAt} - k * ${shiftMs}::bigint) / 86400000.0)::int`;
  for (const table of tables) {
    const columns = (
      await rows<{ c: string }>(
        s.db.orm,
        sql`SELECT column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table} AND is_generated = 'NEVER' ORDER BY ordinal_position`,
      )
    ).map((r) => r.c);
    const shifted: Record<string, string> = {
      trace_id: `lpad(to_hex(k), 2, '0') || substr(x.trace_id, 3)`,
      started_at: `x.started_at - k * ${shiftMs}::bigint`,
      finished_at: `x.finished_at - k * ${shiftMs}::bigint`,
      first_token_at: `x.first_token_at - k * ${shiftMs}::bigint`,
      inserted_at: `x.inserted_at - k * ${shiftMs}::bigint`,
      // A span's day is its trace's.
      day: table === 'traces' ? day('x.started_at') : day('t.started_at'),
    };
    const list = columns.join(', ');
    const select = columns.map((c) => shifted[c] ?? `x.${c}`).join(', ');
    const from = table === 'traces' ? 'traces x' : `spans x JOIN traces t ON t.project_id = x.project_id AND t.trace_id = x.trace_id`;
    await s.db.orm.execute(sql.raw(`INSERT INTO ${table} (${list}) SELECT ${select} FROM ${from}, generate_series(1, ${copies}) AS k WHERE x.project_id = '${projectId}'`));
  }
}

/**
 * Fixtures the analytics join, written directly (their own write paths are not measured here; each
 * result in its trace's day, as the evaluators store it):
 * a fifth of the project's traces evaluated (a tenth of those failed), one in fifty annotated.
 */
export async function judgeAndAnnotate(s: BenchServer) {
  const projectId = s.creds.project.id;
  await s.db.orm.execute(sql`
    INSERT INTO evaluations (id, project_id, trace_id, evaluator, name, status, passed, score, settings, is_guardrail, inserted_at, updated_at, day)
    SELECT 'eval_bench_' || trace_id, project_id, trace_id, 'pii/pii_detection', 'PII', 'processed', abs(hashtext(trace_id)) % 10 <> 0, 1, '{}', false, started_at, started_at, day
    FROM traces WHERE project_id = ${projectId} AND abs(hashtext(trace_id)) % 5 = 0`);
  await s.db.orm.execute(sql`
    INSERT INTO annotations (id, project_id, trace_id, comment, is_thumbs_up)
    SELECT 'ann_bench_' || trace_id, project_id, trace_id, 'bench', abs(hashtext(trace_id)) % 3 <> 0
    FROM traces WHERE project_id = ${projectId} AND abs(hashtext(trace_id)) % 50 = 1`);
}

/** Hours whose rollups are not caught up (every project's): 0 means the charts then timed read the rollups for every whole hour. */
export async function dirtyLeft(s: BenchServer): Promise<number> {
  const [{ n }] = await rows<{ n: number }>(s.db.orm, sql`SELECT count(DISTINCT (project_id, hour))::int AS n FROM trace_hours_dirty`);
  return Number(n);
}
