import { sql } from 'drizzle-orm';
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
  const traces = opts.spans / 5;
  const end = Date.now() - 60_000;
  const start = end - 30 * DAY;
  const spacing = Math.floor((30 * DAY) / traces);
  const requests = Math.ceil(opts.spans / spansPerRequest);
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
  const projectId = s.creds.project.id;
  // Fixtures the dashboard joins (written directly: their own write paths are not measured here).
  await s.db.orm.execute(sql`
    INSERT INTO evaluations (id, project_id, trace_id, evaluator, name, status, passed, score, settings, is_guardrail, inserted_at, updated_at)
    SELECT 'eval_bench_' || trace_id, project_id, trace_id, 'pii/pii_detection', 'PII', 'processed', abs(hashtext(trace_id)) % 10 <> 0, 1, '{}', false, started_at, started_at
    FROM traces WHERE project_id = ${projectId} AND abs(hashtext(trace_id)) % 5 = 0`);
  await s.db.orm.execute(sql`
    INSERT INTO annotations (id, project_id, trace_id, comment, is_thumbs_up)
    SELECT 'ann_bench_' || trace_id, project_id, trace_id, 'bench', abs(hashtext(trace_id)) % 3 <> 0
    FROM traces WHERE project_id = ${projectId} AND abs(hashtext(trace_id)) % 50 = 1`);
  await s.app.services.traces.refreshStatistics();
  await s.db.orm.execute(sql`ANALYZE evaluations, annotations`);
  const [{ n }] = await rows<{ n: number }>(s.db.orm, sql`SELECT sum(span_count)::int AS n FROM traces WHERE project_id = ${projectId} AND started_at >= ${start}`);

  const range = { startDate: start, endDate: end };
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
  }
  return { spans: Number(n), traces: tracesSeen, loadSeconds, results };
}
