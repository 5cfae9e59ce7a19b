import { sql } from 'drizzle-orm';
import { rows } from '../src/db/index.ts';
import { median, percentile, pool, type BenchServer } from './lib.ts';
import { simpleTrace, threadTurn } from '../test/support/sample-traces.ts';
import { hasChromium } from '../test/support/browser.ts';
import { signedInPage } from './web.ts';

/**
 * The data behind the threads page and the users page, through their API routes:
 * - a thread of `turns` traces, read as the page reads it (POST /api/trace/search filtered by
 *   thread, oldest first): its first page of 50 turns and all of it in one page;
 * - the users page over `users` end users (POST /api/analytics/users): the first page by last
 *   seen (the page's default), by cost, and a search within user ids.
 * The thread and 1,000 traces of 1,000 users go through the collector; copies of those
 * trace rows under other trace and user ids make up the rest (loading every trace through
 * HTTP measures ingest, not these pages).
 */
export async function benchViews(s: BenchServer, opts: { turns: number; users: number; tracesPerUser: number; runs: number }) {
  const key = s.creds.projectApiKey;
  const projectId = s.creds.project.id;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${s.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const now = Date.now();
  const t0 = performance.now();
  await pool(
    Array.from({ length: opts.turns }, (_, i) => () => post('/api/collector', threadTurn(`turn-${i}`, now - (opts.turns - i) * 60_000, i, { threadId: 'long-thread', failed: i % 37 === 5 }))),
    4,
  );
  const base = Math.min(1000, opts.users);
  await pool(
    Array.from({ length: base }, (_, i) => () => post('/api/collector', { ...simpleTrace(`u-${i}`, now - 86_400_000 - i * 7_000, i), metadata: { user_id: `u-${i}` } })),
    4,
  );
  // Copies: copy k of trace u-i belongs to user u-i-(k % groups); with the originals' users,
  // base * (groups + 1) users.
  const groups = Math.max(1, Math.ceil(opts.users / base) - 1);
  const copies = (groups + 1) * opts.tracesPerUser - 1;
  const columns = (
    await rows<{ c: string }>(s.db.orm, sql`SELECT column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'traces' AND is_generated = 'NEVER' ORDER BY ordinal_position`)
  ).map((r) => r.c);
  const shifted: Record<string, string> = {
    trace_id: `trace_id || '-c' || k`,
    user_id: `user_id || '-' || (k % ${groups})`,
    started_at: `started_at - k * 600000::bigint`,
    finished_at: `finished_at - k * 600000::bigint`,
  };
  await s.db.orm.execute(
    sql.raw(
      `INSERT INTO traces (${columns.join(', ')}) SELECT ${columns.map((c) => shifted[c] ?? c).join(', ')} FROM traces, generate_series(1, ${copies}) AS k WHERE project_id = '${projectId}' AND trace_id LIKE 'u-%'`,
    ),
  );
  await s.db.orm.execute(sql`
    INSERT INTO annotations (id, project_id, trace_id, comment, is_thumbs_up)
    SELECT 'ann_bench_' || trace_id, project_id, trace_id, 'bench', abs(hashtext(trace_id)) % 3 <> 0
    FROM traces WHERE project_id = ${projectId} AND abs(hashtext(trace_id)) % 50 = 1`);
  await s.app.services.traces.refreshStatistics();
  await s.db.orm.execute(sql`ANALYZE annotations`);
  const loadSeconds = (performance.now() - t0) / 1000;
  const [{ users, traces }] = await rows<{ users: number; traces: number }>(
    s.db.orm,
    sql`SELECT count(DISTINCT user_id)::int AS users, count(*)::int AS traces FROM traces WHERE project_id = ${projectId}`,
  );
  console.error(`views bench (${s.kind}): ${traces} traces of ${users} users loaded in ${loadSeconds.toFixed(0)} s`);

  const shapes: Record<string, [string, Record<string, unknown>, (j: Record<string, unknown>) => number]> = {
    [`thread of ${opts.turns} turns: first page (50)`]: ['/api/trace/search', { filters: { thread_id: 'long-thread' }, sortBy: 'started_at', sortDirection: 'asc', pageSize: 50 }, (j) => (j.traces as unknown[]).length],
    [`thread of ${opts.turns} turns: every turn in one page`]: ['/api/trace/search', { filters: { thread_id: 'long-thread' }, sortBy: 'started_at', sortDirection: 'asc', pageSize: 1000 }, (j) => (j.traces as unknown[]).length],
    'users: first page by last seen': ['/api/analytics/users', { pageSize: 50 }, (j) => (j.pagination as { total: number }).total],
    'users: first page by cost': ['/api/analytics/users', { pageSize: 50, sortBy: 'cost' }, (j) => (j.pagination as { total: number }).total],
    'users: page 100 by thumbs down': ['/api/analytics/users', { pageSize: 50, sortBy: 'thumbs_down', page: 100 }, (j) => (j.pagination as { total: number }).total],
    'users: search "u-12"': ['/api/analytics/users', { pageSize: 50, search: 'u-12' }, (j) => (j.pagination as { total: number }).total],
  };
  const results: Record<string, { p50: number; p95: number; answered: number }> = {};
  for (const [name, [path, body, count]] of Object.entries(shapes)) {
    const latencies: number[] = [];
    let answered = 0;
    for (let i = 0; i < opts.runs; i++) {
      const q0 = performance.now();
      const json = await post(path, body);
      latencies.push(performance.now() - q0);
      answered = count(json);
    }
    results[name] = { p50: median(latencies), p95: percentile(latencies, 95), answered };
    console.error(`views bench (${s.kind}): ${name}: median ${results[name].p50.toFixed(0)} ms (${answered})`);
  }
  // The same two pages in Chromium: navigation start to the turns / the first rows drawn.
  if (hasChromium) {
    const { browser, page } = await signedInPage(s);
    try {
      const pages: Record<string, [string, string]> = {
        // The thread page draws 50 turns, then more on demand.
        [`thread page of ${opts.turns} turns in the browser: first 50 turns drawn`]: [`/p/${projectId}/threads/long-thread`, `[data-testid=thread-turns] li.turn >> nth=${Math.min(50, opts.turns) - 1}`],
        [`users page in the browser: first rows drawn`]: [`/p/${projectId}/users`, '[data-testid=users-table] tbody tr'],
      };
      for (const [name, [path, ready]] of Object.entries(pages)) {
        const latencies: number[] = [];
        for (let i = 0; i < Math.min(opts.runs, 7); i++) {
          await page.goto(`${s.baseUrl}${path}`, { waitUntil: 'commit' });
          await page.locator(ready).first().waitFor({ timeout: 30_000 });
          latencies.push(await page.evaluate(() => performance.now()));
        }
        results[name] = { p50: median(latencies), p95: percentile(latencies, 95), answered: latencies.length };
        console.error(`views bench (${s.kind}): ${name}: median ${results[name].p50.toFixed(0)} ms`);
      }
    } finally {
      await browser.close();
    }
  }
  return { users: Number(users), traces: Number(traces), loadSeconds, results };
}
