/**
 * `node --import tsx bench/ingest-median.ts [pglite|postgres] [runs]`: the ingest
 * measurement of `npm run bench` only, repeated on a fresh server and database each run,
 * for comparing two versions of the code (run it in each checkout); prints every run and
 * the median. BENCH_CLIENTS and BENCH_IN_FLIGHT as for the bench; PostgreSQL from
 * BENCH_DATABASE_URL or TEST_DATABASE_URL (default: the local server); BENCH_DURABLE=0 runs PGlite
 * without fsync, to compare.
 *
 * Each run also prints the server's CPU time per 1,000 spans by thread (and, on PostgreSQL,
 * its backends'), which other work on the machine moves far less than spans/s, and then
 * inserts the same rows again with plain multi-row INSERT statements (bench/traces.ts
 * benchRawInsert) for the ratio ingest / raw, measured in the same run. BENCH_RAW=0 skips that;
 * BENCH_REQUESTS sets the requests of 100 spans per run (default 500).
 * Under `--cpu-prof` it prints the measured window on the profiles' clock (microseconds).
 *
 * BENCH_AGAINST=<another checkout>: the same measurement of two versions of the code in one
 * sitting, alternating (this checkout, that one; then that one first, and so on), each run in a
 * process of its own started in its checkout (its own bench/ingest-median.ts, one run, no raw
 * insert); prints each pair and the medians of spans/s and of the server's CPU ms per 1,000
 * spans (all its threads, and PostgreSQL's backends), with the ratios this / that. For the
 * day partitions against the unpartitioned build: docs/performance.md.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { backendCpu, median, startBenchServer, threadCpu } from './lib.ts';
import { benchIngest, benchRawInsert } from './traces.ts';

const kind = (process.argv[2] ?? 'pglite') as 'pglite' | 'postgres';
// BENCH_DURABLE=0: PGlite without fsync, to compare with the durable default.
const durable = process.env.BENCH_DURABLE !== '0';
const runs = Number(process.argv[3] ?? '5');
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const clients = Number(process.env.BENCH_CLIENTS ?? '2');
const inFlight = Number(process.env.BENCH_IN_FLIGHT ?? '2');
/** Requests of 100 spans per run (500: 50,000 spans, as `npm run bench`). */
const requests = Number(process.env.BENCH_REQUESTS ?? '500');
const withRaw = process.env.BENCH_RAW !== '0';
/** SPYGLASS_* variables of this process reach the server under bench (e.g. SPYGLASS_WEBHOOK_POLL_MS=0, to compare). */
const serverEnv = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => k.startsWith('SPYGLASS_') && v !== undefined)) as Record<string, string>;
const profiling = process.execArgv.some((a) => a.startsWith('--cpu-prof'));


const against = process.env.BENCH_AGAINST;
if (against) {
  await compareCheckouts(path.resolve(against));
  process.exit(0);
}

/** One run of a checkout's own bench/ingest-median.ts in a process of its own: spans/s, and the server's CPU ms per 1,000 spans. */
function runIn(checkout: string): { spansPerSecond: number; cpuPer1k: number } {
  const { BENCH_AGAINST: _against, ...rest } = process.env;
  const env = { ...rest, BENCH_RAW: '0' };
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/ingest-median.ts', kind, '1'], { cwd: checkout, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`bench/ingest-median.ts in ${checkout} exited with ${r.status}:\n${r.stdout}`);
  const rate = /run 1: (\d+) spans\/s/.exec(r.stdout);
  const cpu = /CPU ms per 1,000 spans: (.*)/.exec(r.stdout);
  if (!rate || !cpu) throw new Error(`unexpected output from ${checkout}:\n${r.stdout}`);
  // main, decode worker, busiest other thread, rest (and the PostgreSQL backends): every figure of the line.
  const cpuPer1k = [...cpu[1].matchAll(/ (\d+)(?=,|$)/g)].reduce((n, m) => n + Number(m[1]), 0);
  return { spansPerSecond: Number(rate[1]), cpuPer1k };
}

async function compareCheckouts(other: string) {
  const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const os = await import('node:os');
  const mine: ReturnType<typeof runIn>[] = [];
  const theirs: ReturnType<typeof runIn>[] = [];
  const loads: number[] = [os.loadavg()[0]];
  for (let run = 0; run < runs; run++) {
    // Alternating which goes first, so a drift of the machine's load favours neither.
    const order = run % 2 === 0 ? ([here, other] as const) : ([other, here] as const);
    for (const checkout of order) {
      const r = runIn(checkout);
      (checkout === here ? mine : theirs).push(r);
      loads.push(os.loadavg()[0]);
      console.log(`${kind} run ${run + 1} ${checkout === here ? 'this checkout' : other}: ${r.spansPerSecond} spans/s, server CPU ${r.cpuPer1k} ms per 1,000 spans`);
    }
  }
  const m = (rs: ReturnType<typeof runIn>[], f: (r: ReturnType<typeof runIn>) => number) => median(rs.map(f));
  const [a, b] = [m(mine, (r) => r.spansPerSecond), m(theirs, (r) => r.spansPerSecond)];
  const [ca, cb] = [m(mine, (r) => r.cpuPer1k), m(theirs, (r) => r.cpuPer1k)];
  console.log(`${kind} medians of ${runs}: this checkout ${Math.round(a)} spans/s, ${ca} CPU ms per 1,000 spans; ${other} ${Math.round(b)} spans/s, ${cb} CPU ms per 1,000 spans`);
  console.log(`${kind} this / that: spans/s ${(a / b).toFixed(2)}, CPU per span ${(cb / ca).toFixed(2)} (inverse: above 1 is less CPU here); load average (1 min) ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`);
}

const results: number[] = [];
const ratios: number[] = [];
for (let run = 0; run < runs; run++) {
  const server = await startBenchServer(kind, pgUrl, { durable, env: serverEnv });
  try {
    let backendsBefore = new Map<number, number>();
    let backendsAfter = new Map<number, number>();
    let cpu = threadCpu();
    let used = cpu();
    let startUs = 0n;
    let endUs = 0n;
    const r = await benchIngest(
      server,
      { requests, clients, inFlight, firstTrace: 0, salt: 1 },
      {
        start: async () => {
          backendsBefore = await backendCpu(server);
          cpu = threadCpu();
          startUs = process.hrtime.bigint() / 1000n;
        },
        end: async () => {
          used = cpu();
          endUs = process.hrtime.bigint() / 1000n;
          backendsAfter = await backendCpu(server);
        },
      },
    );
    let backends = 0;
    for (const [pid, s] of backendsAfter) backends += s - (backendsBefore.get(pid) ?? 0);
    results.push(r.spansPerSecond);
    const per1k = (seconds: number) => ((seconds * 1000 * 1000) / r.spans).toFixed(0);
    console.log(`${kind} run ${run + 1}: ${Math.round(r.spansPerSecond)} spans/s (request p50 ${r.requestP50.toFixed(1)} ms)`);
    console.log(
      `  CPU ms per 1,000 spans: main ${per1k(used.main)}, decode worker ${per1k(used.decode)}, busiest other thread${kind === 'pglite' ? ' (PGlite)' : ''} ${per1k(used.busiestOther)}, rest ${per1k(used.rest)}` +
        (kind === 'postgres' ? `, PostgreSQL backends ${per1k(backends)}` : ''),
    );
    if (profiling) console.log(`  window ${startUs} ${endUs}`);
    if (withRaw) {
      // The raw insert's CPU as well (its statements' text is made before its clock starts, so this includes a little of that).
      const rawBackendsBefore = await backendCpu(server);
      const rawCpu = threadCpu();
      const raw = await benchRawInsert(server, r.spans);
      const rawUsed = rawCpu();
      const rawBackendsAfter = await backendCpu(server);
      let rawBackends = 0;
      for (const [pid, s] of rawBackendsAfter) rawBackends += s - (rawBackendsBefore.get(pid) ?? 0);
      ratios.push(r.spansPerSecond / raw.rowsPerSecond);
      const perRow1k = (seconds: number) => ((seconds * 1000 * 1000) / raw.rows).toFixed(0);
      console.log(`  raw multi-row INSERT of the same ${raw.rows} rows (100 per statement, each committed): ${Math.round(raw.rowsPerSecond)} rows/s; ingest / raw ${(r.spansPerSecond / raw.rowsPerSecond).toFixed(2)}`);
      console.log(
        `  raw insert CPU ms per 1,000 rows: main ${perRow1k(rawUsed.main)}, busiest other thread${kind === 'pglite' ? ' (PGlite)' : ''} ${perRow1k(rawUsed.busiestOther)}, rest ${perRow1k(rawUsed.rest)}` +
          (kind === 'postgres' ? `, PostgreSQL backends ${perRow1k(rawBackends)}` : ''),
      );
    }
  } finally {
    await server.close();
  }
}
console.log(`${kind} median of ${runs}: ${Math.round(median(results))} spans/s` + (ratios.length ? `; ingest / raw insert ${median(ratios).toFixed(2)}` : ''));
