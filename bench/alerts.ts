import { DayPartitions, dayOf } from '../src/db/day-partitions.ts';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { rows } from '../src/db/index.ts';
import { median, threadCpu, type BenchServer } from './lib.ts';

const MIN = 60_000;
const DAY = 86_400_000;
const WINDOW = 5 * MIN;

/**
 * Alert rules over a big project. The traces are written as trace summaries straight into
 * the traces table (`traces` rows of 5 spans each, spread over the last 30 days, a fifth
 * evaluated): alerts read only the summaries and evaluations, and loading millions of spans
 * through ingest here would take hours and measure nothing about alerts.
 *
 * - `rules` rules (a mix of every kind of metric and condition, a fifth split by model)
 *   each evaluating one 5-minute window: the CPU of the server (all its threads, PGlite's
 *   worker included; on PostgreSQL plus the backends of its database) for that round,
 *   counted as if every rule evaluated every minute (5 times what 5-minute windows cost);
 * - the same sustained: a few minutes of the real scheduler with every rule made due for a new
 *   window each minute, the server's CPU per minute of wall time (and the idle process's);
 * - a rule's replay over 30 days of windows (the evaluation of each window, as the scheduler
 *   does after downtime) on the same data;
 * - the notification delay: a window ends while every rule is due; the time until a
 *   Slack-compatible receiver (loopback) gets the message, with the real scheduler (polls of
 *   15 s for rules, 2 s for jobs);
 * - `manyRules` rules in one project due at once: the time one poll takes to evaluate them.
 */
export async function benchAlerts(s: BenchServer, opts: { traces: number; previewTraces: number; rules: number; manyRules: number; rounds: number; sustainedMinutes: number }) {
  const projectId = s.creds.project.id;
  const end = Math.floor(Date.now() / WINDOW) * WINDOW;
  const start = end - 30 * DAY;
  const counted = async () =>
    (await rows<{ spans: number; traces: number }>(s.db.orm, sql`SELECT sum(span_count)::float8 AS spans, count(*)::int AS traces FROM traces WHERE project_id = ${projectId}`)).map((r) => ({
      spans: Number(r.spans),
      traces: Number(r.traces),
    }))[0];

  // First the preview's data set (1M spans: 200,000 traces of 5 spans over 30 days): the preview's target is at that size.
  const t0 = performance.now();
  const firstPart = Math.min(opts.previewTraces, opts.traces);
  await loadTraces(s, projectId, { first: 0, count: firstPart, start, end, offset: 0 });
  const previewSize = await counted();
  console.error(`alerts bench (${s.kind}): ${previewSize.traces} traces / ${previewSize.spans} spans written in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const previewAtTarget = await previews(s);

  // Then the rest, interleaved in time, to the rules' data set (1M traces / 5M spans).
  if (opts.traces > firstPart) await loadTraces(s, projectId, { first: firstPart, count: opts.traces - firstPart, start, end, offset: 0.5 });
  const loadSeconds = (performance.now() - t0) / 1000;
  const { spans, traces } = await counted();
  console.error(`alerts bench (${s.kind}): ${traces} traces / ${spans} spans written in ${loadSeconds.toFixed(0)} s`);

  // The rules: made through HTTP (every check), then pointed at the last ended window.
  const kinds: object[] = [
    { metric: { kind: 'error_rate' }, condition: { kind: 'change', baseline: { kind: 'previous' } } },
    { metric: { kind: 'error_rate' }, condition: { kind: 'threshold', operator: 'above', value: 0.2 }, splitBy: 'model' },
    { metric: { kind: 'trace_count' }, condition: { kind: 'change', baseline: { kind: 'week' } } },
    { metric: { kind: 'latency_p95' }, condition: { kind: 'threshold', operator: 'above', value: 5000 } },
    { metric: { kind: 'latency_p50' }, condition: { kind: 'change', baseline: { kind: 'previous' } }, splitBy: 'model' },
    { metric: { kind: 'first_token_p50' }, condition: { kind: 'threshold', operator: 'above', value: 2000 } },
    { metric: { kind: 'cost_per_trace' }, condition: { kind: 'change', baseline: { kind: 'previous' } } },
    { metric: { kind: 'tokens_total' }, condition: { kind: 'threshold', operator: 'above', value: 1e7 } },
    { metric: { kind: 'evaluator_pass_rate', evaluator: 'pii/pii_detection' }, condition: { kind: 'change', baseline: { kind: 'previous' } } },
    { metric: { kind: 'evaluator_pass_rate' }, splitBy: 'evaluator', condition: { kind: 'threshold', operator: 'below', value: 0.5 } },
  ];
  const ids: string[] = [];
  for (let i = 0; i < opts.rules; i++) ids.push(await createRule(s, { name: `rule ${i}`, windowMinutes: 5, ...kinds[i % kinds.length] }));

  /** Every rule of the project due for exactly the window [end - 5 min, end). */
  const rewind = async () => {
    await s.db.orm.execute(sql`DELETE FROM alert_windows WHERE rule_id IN (SELECT id FROM alert_rules WHERE project_id = ${projectId})`);
    await s.db.orm.execute(sql`DELETE FROM alert_evaluations WHERE rule_id IN (SELECT id FROM alert_rules WHERE project_id = ${projectId})`);
    // The last ended window now (loading takes minutes: the boundary at the start is long gone).
    const edge = Math.floor(Date.now() / WINDOW) * WINDOW;
    await s.db.orm.execute(sql`UPDATE alert_rules SET evaluated_through = ${edge - WINDOW}, segment_states = '{}' WHERE project_id = ${projectId}`);
  };
  /**
   * One poll cycle over every enabled rule of the project, each due for one window: its wall time
   * and CPU (the server's threads, plus its database's PostgreSQL backends), waiting until every
   * rule's window is claimed (the running scheduler may take some).
   */
  const round = async (enabled: number) => {
    await rewind();
    const cpu = threadCpu();
    const pg = await postgresCpu(s);
    const w0 = performance.now();
    await s.app.services.alerts.alerts.evaluateDue();
    while ((await claimed()) < enabled) await new Promise((r) => setTimeout(r, 50));
    const wall = (performance.now() - w0) / 1000;
    const used = cpu();
    // Plus the PostgreSQL backends of the bench's database (other work on the machine does not count).
    const seconds = used.main + used.decode + used.busiestOther + used.rest + pg();
    return { wall, seconds };
  };
  const cpuShares: number[] = [];
  const walls: number[] = [];
  /** Windows claimed by the project's rules: the scheduler (which runs, every 15 s) may take some of a round's. */
  const claimed = async () =>
    Number((await rows<{ n: number }>(s.db.orm, sql`SELECT count(*)::int AS n FROM alert_windows WHERE rule_id IN (SELECT id FROM alert_rules WHERE project_id = ${projectId})`))[0].n);
  for (let r = 0; r < opts.rounds; r++) {
    const { wall, seconds } = await round(opts.rules);
    // Per minute, were every rule evaluated every minute: the round's CPU over 60 s.
    cpuShares.push(seconds / 60);
    walls.push(wall);
    console.error(`alerts bench (${s.kind}): ${opts.rules} rules, one window each: ${wall.toFixed(2)} s wall, ${seconds.toFixed(2)} s CPU`);
  }

  // Sustained: the real scheduler (its 15 s poll) with every rule due for a new 5-minute window at
  // the start of each minute, `sustainedMinutes` minutes long; the CPU of the server process (all
  // its threads, plus its database's PostgreSQL backends) over the whole wall time, per minute.
  // Then as long with no rule due: what the process costs when idle (its polls, timers, pool).
  const sustained = await sustainedCost(s, projectId, opts.rules, opts.sustainedMinutes);
  console.error(
    `alerts bench (${s.kind}): sustained ${opts.sustainedMinutes} min, ${sustained.windows} windows evaluated by the scheduler: ${sustained.cpuSeconds.toFixed(2)} s CPU in ${sustained.wallSeconds.toFixed(0)} s wall (${(sustained.cpuShareOfOneCore * 100).toFixed(2)} % of a core); idle ${(sustained.idleShareOfOneCore * 100).toFixed(2)} % of a core; load average ${sustained.load.join(' / ')}`,
  );

  // The same previews on the whole data set (for comparison: the target is at 1M spans).
  const preview = await previews(s);

  // A rule's 30 days of hourly windows (720), evaluated as after downtime (the scheduler may take a share: the time is until the rule is through).
  const replayRules: Record<string, object> = {
    'error_rate change vs previous': { metric: { kind: 'error_rate' }, condition: { kind: 'change', baseline: { kind: 'previous' } } },
    'latency_p95 threshold': { metric: { kind: 'latency_p95' }, condition: { kind: 'threshold', operator: 'above', value: 5000 } },
  };
  await s.db.orm.execute(sql`UPDATE alert_rules SET enabled = false WHERE project_id = ${projectId}`);
  const replay: Record<string, { windows: number; seconds: number }> = {};
  const hour = 60 * MIN;
  for (const [name, body] of Object.entries(replayRules)) {
    const id = await createRule(s, { name: `replay ${name}`, windowMinutes: 60, ...body });
    const through = Math.floor(Date.now() / hour) * hour;
    await s.db.orm.execute(sql`UPDATE alert_rules SET evaluated_through = ${through - 30 * DAY} WHERE id = ${id}`);
    const r0 = performance.now();
    for (;;) {
      await s.app.services.alerts.alerts.evaluateDue();
      const [{ t }] = await rows<{ t: number }>(s.db.orm, sql`SELECT evaluated_through AS t FROM alert_rules WHERE id = ${id}`);
      if (Number(t) >= through) break;
    }
    replay[name] = { windows: await s.app.services.alerts.alerts.windowsEvaluated(id), seconds: (performance.now() - r0) / 1000 };
    await s.db.orm.execute(sql`UPDATE alert_rules SET enabled = false WHERE id = ${id}`);
    console.error(`alerts bench (${s.kind}): replay of 30 days, ${name}: ${replay[name].windows} windows in ${replay[name].seconds.toFixed(1)} s`);
  }

  // Notification delay, with the scheduler running: every rule due at once, plus one that fires.
  const receiver = await slackReceiver();
  const delays: number[] = [];
  try {
    await post(s, '/api/alerts/channels', { name: 'bench', kind: 'slack', target: receiver.url });
    await s.db.orm.execute(sql`UPDATE alert_rules SET enabled = (name LIKE 'rule %') WHERE project_id = ${projectId}`);
    // Restricted to a label no trace has, its window is empty however soon after the load it closes.
    await createRule(s, { name: 'fires', windowMinutes: 5, metric: { kind: 'trace_count' }, filters: { labels: ['bench-no-trace-has-this'] }, condition: { kind: 'threshold', operator: 'below', value: 1, minCount: 0 }, resolveAfter: 100 });
    for (let sample = 0; sample < 3; sample++) {
      await s.db.orm.execute(sql`DELETE FROM alert_windows WHERE rule_id IN (SELECT id FROM alert_rules WHERE project_id = ${projectId})`);
      await s.db.orm.execute(sql`DELETE FROM alert_evaluations WHERE rule_id IN (SELECT id FROM alert_rules WHERE project_id = ${projectId})`);
      // The window closes now (off the 5-minute grid on purpose): every enabled rule is due for it, and 'fires' (its window empty) fires.
      const closes = Date.now();
      const arrived = receiver.next('fires', 120_000);
      await s.db.orm.execute(sql`UPDATE alert_rules SET evaluated_through = ${closes - WINDOW}, segment_states = '{}' WHERE project_id = ${projectId} AND enabled`);
      const got = await arrived;
      delays.push((got - closes) / 1000);
      console.error(`alerts bench (${s.kind}): notification ${sample + 1} left ${((got - closes) / 1000).toFixed(1)} s after its window closed`);
    }
  } finally {
    await receiver.close();
  }

  // Many rules in one project, all due at one boundary: one poll cycle evaluates them all (its CPU
  // and wall time), then a window closes with them all due and one that fires (the delay).
  await s.db.orm.execute(sql`UPDATE alert_rules SET enabled = false WHERE project_id = ${projectId}`);
  const extra = Math.max(0, opts.manyRules - opts.rules);
  for (let i = 0; i < extra; i++) await createRule(s, { name: `more ${i}`, windowMinutes: 5, ...kinds[i % kinds.length] });
  await s.db.orm.execute(sql`UPDATE alert_rules SET enabled = (name LIKE 'rule %' OR name LIKE 'more %') WHERE project_id = ${projectId}`);
  const [{ n: enabled }] = await rows<{ n: number }>(s.db.orm, sql`SELECT count(*)::int AS n FROM alert_rules WHERE project_id = ${projectId} AND enabled`);
  const manyRound = await round(Number(enabled));
  const many = await claimed();
  console.error(`alerts bench (${s.kind}): ${many} rules due at once evaluated in ${manyRound.wall.toFixed(1)} s, ${manyRound.seconds.toFixed(1)} s CPU`);
  const manyDelays: number[] = [];
  const receiver2 = await slackReceiver();
  try {
    await post(s, '/api/alerts/channels', { name: 'bench 2', kind: 'slack', target: receiver2.url });
    await s.db.orm.execute(sql`UPDATE alert_rules SET enabled = (name LIKE 'rule %' OR name LIKE 'more %' OR name = 'fires') WHERE project_id = ${projectId}`);
    await s.db.orm.execute(sql`DELETE FROM alert_windows WHERE rule_id IN (SELECT id FROM alert_rules WHERE project_id = ${projectId})`);
    await s.db.orm.execute(sql`DELETE FROM alert_evaluations WHERE rule_id IN (SELECT id FROM alert_rules WHERE project_id = ${projectId})`);
    const closes = Date.now();
    const arrived = receiver2.next('fires', 300_000);
    await s.db.orm.execute(sql`UPDATE alert_rules SET evaluated_through = ${closes - WINDOW}, segment_states = '{}' WHERE project_id = ${projectId} AND enabled`);
    manyDelays.push(((await arrived) - closes) / 1000);
    console.error(`alerts bench (${s.kind}): with ${Number(enabled) + 1} rules due, the notification left ${manyDelays[0].toFixed(1)} s after its window closed`);
  } finally {
    await receiver2.close();
  }

  return {
    traces: Number(traces),
    spans: Number(spans),
    loadSeconds,
    rules: opts.rules,
    cpuShareOfOneCore: median(cpuShares),
    roundWallSeconds: median(walls),
    wallShareOfOneCore: median(walls) / 60,
    sustained,
    replay,
    previewAt: { traces: previewSize.traces, spans: previewSize.spans, preview: previewAtTarget },
    preview,
    notificationDelaySeconds: delays,
    manyRules: { rules: many, seconds: manyRound.wall, cpuSeconds: manyRound.seconds, cpuShareOfOneCore: manyRound.seconds / 60, notificationDelaySeconds: manyDelays },
  };
}

/**
 * `minutes` minutes of the running scheduler with every enabled rule of the project (`rules`)
 * made due for a new 5-minute window (the one ending now, off the grid) at the start of each
 * minute, as if each rule were evaluated every minute: the server process's CPU (every thread,
 * PGlite's worker included, plus its database's PostgreSQL backends) over the wall time, and the
 * windows the scheduler evaluated; then `minutes` minutes with no rule due, the same, for the
 * idle cost. The machine's load average (1 minute) is read each minute.
 */
async function sustainedCost(s: BenchServer, projectId: string, rules: number, minutes: number) {
  const evaluated = async () =>
    Number((await rows<{ n: number }>(s.db.orm, sql`SELECT count(*)::int AS n FROM alert_windows WHERE rule_id IN (SELECT id FROM alert_rules WHERE project_id = ${projectId})`))[0].n);
  const load: string[] = [];
  const measure = async (due: boolean) => {
    const before = await evaluated();
    const cpu = threadCpu();
    const pg = await postgresCpu(s);
    const w0 = performance.now();
    for (let m = 0; m < minutes; m++) {
      const minuteStart = w0 + m * MIN;
      if (due) {
        const now = Date.now();
        await s.db.orm.execute(sql`UPDATE alert_rules SET evaluated_through = ${now - WINDOW} WHERE project_id = ${projectId} AND enabled`);
      }
      load.push(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
      await new Promise((r) => setTimeout(r, Math.max(0, minuteStart + MIN - performance.now())));
    }
    const wall = (performance.now() - w0) / 1000;
    const used = cpu();
    const seconds = used.main + used.decode + used.busiestOther + used.rest + pg();
    return { wall, seconds, windows: (await evaluated()) - before };
  };
  const busy = await measure(true);
  // Every rule evaluated past the idle minutes' end: none is due meanwhile.
  await s.db.orm.execute(sql`UPDATE alert_rules SET evaluated_through = ${Date.now() + minutes * MIN} WHERE project_id = ${projectId} AND enabled`);
  const idle = await measure(false);
  return {
    minutes,
    rules,
    windows: busy.windows,
    wallSeconds: busy.wall,
    cpuSeconds: busy.seconds,
    cpuShareOfOneCore: busy.seconds / busy.wall,
    idleCpuSeconds: idle.seconds,
    idleShareOfOneCore: idle.seconds / idle.wall,
    idleWindows: idle.windows,
    load,
  };
}

/**
 * The rule editor's preview (POST /api/alerts/rules/preview): 30 days of windows replayed (read
 * in bulk), each rule 3 times through HTTP: the wall time of each, and its CPU (the server's
 * threads, PGlite's included, plus its database's PostgreSQL backends).
 */
async function previews(s: BenchServer): Promise<Record<string, { seconds: number[]; cpuSeconds: number[]; windows: number; fired: number }>> {
  const hourAgo = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const previewRules: Record<string, object> = {
    'error rate, change vs previous, hourly': { metric: { kind: 'error_rate' }, windowMinutes: 60, condition: { kind: 'change', baseline: { kind: 'previous' } } },
    'error rate by model, change vs a reference week, hourly': {
      metric: { kind: 'error_rate' },
      splitBy: 'model',
      windowMinutes: 60,
      condition: { kind: 'change', baseline: { kind: 'reference', start: hourAgo - 14 * DAY, end: hourAgo - 7 * DAY } },
    },
    'latency p95, threshold, hourly': { metric: { kind: 'latency_p95' }, windowMinutes: 60, condition: { kind: 'threshold', operator: 'above', value: 5000 } },
    'latency p50 by model, change vs a week ago, hourly': { metric: { kind: 'latency_p50' }, splitBy: 'model', windowMinutes: 60, condition: { kind: 'change', baseline: { kind: 'week' } } },
    'PII pass rate, change vs previous, 5 minutes (8,640 windows)': { metric: { kind: 'evaluator_pass_rate', evaluator: 'pii/pii_detection' }, windowMinutes: 5, condition: { kind: 'change', baseline: { kind: 'previous' } } },
    'cost per trace, change vs previous, hourly': { metric: { kind: 'cost_per_trace' }, windowMinutes: 60, condition: { kind: 'change', baseline: { kind: 'previous' } } },
  };
  const out: Record<string, { seconds: number[]; cpuSeconds: number[]; windows: number; fired: number }> = {};
  for (const [name, body] of Object.entries(previewRules)) {
    const seconds: number[] = [];
    const cpuSeconds: number[] = [];
    let answer: Record<string, unknown> = {};
    for (let i = 0; i < 3; i++) {
      const cpu = threadCpu();
      const pg = await postgresCpu(s);
      const p0 = performance.now();
      answer = await post(s, '/api/alerts/rules/preview', { name, ...body });
      seconds.push((performance.now() - p0) / 1000);
      const used = cpu();
      cpuSeconds.push(used.main + used.decode + used.busiestOther + used.rest + pg());
    }
    out[name] = { seconds, cpuSeconds, windows: (answer.windows as unknown[]).length, fired: answer.fired as number };
    console.error(
      `alerts bench (${s.kind}): preview of 30 days, ${name}: ${seconds.map((x) => x.toFixed(2)).join(' / ')} s wall, ${cpuSeconds.map((x) => x.toFixed(2)).join(' / ')} s CPU (${out[name].windows} windows, fired ${out[name].fired})`,
    );
  }
  return out;
}

/**
 * CPU seconds (user + system) of this bench's own PostgreSQL backends from now until the returned
 * function is called: the postmaster's children whose title names the bench's database
 * (PostgreSQL titles each backend "postgres: user database host ..."), read from /proc every
 * 100 ms, so a backend that ends meanwhile (the pool closes idle connections) keeps what it used
 * until its last read, and other work on the machine's PostgreSQL does not count. Each process's
 * title is read once and the postmaster's children listed from /proc/<pid>/task/<pid>/children:
 * the sampling itself (which runs in the server's process and counts in its CPU) costs little;
 * scanning every process of the machine 10 times a second cost about 2 % of a core. 0 on PGlite
 * (its worker is a thread of the server, counted by threadCpu).
 */
async function postgresCpu(s: BenchServer): Promise<() => number> {
  if (s.kind !== 'postgres') return () => 0;
  const [{ name, backend }] = await rows<{ name: string; backend: number }>(s.db.orm, sql`SELECT current_database() AS name, pg_backend_pid() AS backend`);
  const fieldsOf = (pid: string) => {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  };
  // The postmaster: the parent of this connection's backend (PostgreSQL on this machine, as the bench's URL says).
  let children: (() => string[]) | null = null;
  try {
    const postmaster = fieldsOf(String(backend))[1];
    const list = `/proc/${postmaster}/task/${postmaster}/children`;
    fs.readFileSync(list, 'utf8');
    children = () => fs.readFileSync(list, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    // No such file (or PostgreSQL elsewhere): every process of the machine, each title read once.
  }
  const every = () => fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  const ours = new Map<string, boolean>();
  const read = () => {
    const found = new Map<string, number>();
    for (const pid of (children ?? every)()) {
      try {
        const fields = fieldsOf(pid);
        // A process is its pid and start time (a pid may be reused by another backend).
        const key = `${pid}:${fields[19]}`;
        let mine = ours.get(key);
        if (mine === undefined) {
          const title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          mine = title.startsWith('postgres:') && title.split(' ').includes(name);
          ours.set(key, mine);
        }
        if (!mine) continue;
        found.set(key, (Number(fields[11]) + Number(fields[12])) / 100);
      } catch {
        // The process ended meanwhile: its last read stands.
      }
    }
    return found;
  };
  const start = read();
  const last = new Map(start);
  const sample = () => {
    for (const [pid, seconds] of read()) last.set(pid, seconds);
  };
  const timer = setInterval(sample, 100);
  return () => {
    clearInterval(timer);
    sample();
    let total = 0;
    for (const [pid, seconds] of last) total += seconds - (start.get(pid) ?? 0);
    return total;
  };
}

async function post(s: BenchServer, url: string, body: object): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.baseUrl}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.creds.projectApiKey}` },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

const createRule = async (s: BenchServer, body: object) => (await post(s, '/api/alerts/rules', body)).id as string;

/**
 * `count` trace summaries (ids from `first`) over [start, end): 5 spans each, 3 models, 2 %
 * errors (10 % on one model), latencies 200..3,000 ms, 500 users, costs and tokens; a fifth
 * with a PII verdict. `offset` (a share of the step between traces) interleaves a second load
 * with the first.
 */
async function loadTraces(s: BenchServer, projectId: string, o: { first: number; count: number; start: number; end: number; offset: number }) {
  const step = (o.end - o.start) / o.count;
  const start = o.start + o.offset * step;
  const end = o.end;
  const chunk = 100_000;
  // The days' partitions first, as ingest makes them: rows of a day without one would go to the default partition.
  const days = new DayPartitions(s.db, ['traces', 'spans', 'evaluations']);
  await days.ensure(Array.from({ length: dayOf(end) - dayOf(start) + 1 }, (_, k) => dayOf(start) + k));
  for (let from = o.first; from < o.first + o.count; from += chunk) {
    const to = Math.min(o.first + o.count, from + chunk);
    await s.db.orm.execute(sql`
      INSERT INTO traces (project_id, trace_id, started_at, finished_at, inserted_at, updated_at, user_id, customer_id, labels, models, normalized_models, model_names,
        span_count, first_token_ms, total_time_ms, prompt_tokens, completion_tokens, total_cost, has_error, day)
      SELECT ${projectId}, 'bench-' || i, st, st + lat, st + lat, st + lat, 'user-' || (i % 500), 'customer-' || (i % 50), ARRAY['prod'], ARRAY[m], ARRAY[m], ARRAY[m],
        5, (lat / 4)::int, lat::int, 200 + i % 300, 50 + i % 100, (200 + i % 300) * 0.000001, (i % 50 = 0) OR (m = 'claude-3-5-haiku' AND i % 10 = 0), floor(st / 86400000.0)::int
      FROM (SELECT i, (${Math.round(start)}::bigint + ((i - ${o.first}) * ${step}::float8)::bigint) AS st, 200 + (i * 7919) % 2800 AS lat,
              (ARRAY['gpt-4o-mini', 'gpt-4o', 'claude-3-5-haiku'])[1 + i % 3] AS m
            FROM generate_series(${from}::bigint, ${to - 1}::bigint) AS i) x`);
    await s.db.orm.execute(sql`
      INSERT INTO evaluations (id, project_id, trace_id, evaluator, name, status, passed, score, settings, is_guardrail, inserted_at, updated_at)
      SELECT 'eval-bench-' || i, ${projectId}, 'bench-' || i, 'pii/pii_detection', 'PII', 'processed', i % 50 <> 0, (i % 10) / 10.0, '{}', false, ${end}, ${end}
      FROM generate_series(${from}::int, ${to - 1}::int) AS i WHERE i % 5 = 0`);
  }
  await s.app.services.traces.refreshStatistics();
  await s.db.orm.execute(sql`ANALYZE evaluations`);
}

/** A Slack-compatible incoming webhook on loopback: `next(text)` resolves with the arrival time of the next message containing the text. */
async function slackReceiver() {
  const waiting: { text: string; resolve: (at: number) => void }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      res.end('ok');
      const at = Date.now();
      const i = waiting.findIndex((w) => body.includes(w.text));
      if (i >= 0) waiting.splice(i, 1)[0].resolve(at);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T/B/X`,
    next: (text: string, timeoutMs: number) =>
      new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no message')), timeoutMs);
        waiting.push({
          text,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        });
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
