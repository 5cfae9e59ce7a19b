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
 */
import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import { rows } from '../src/db/index.ts';
import { median, startBenchServer, threadCpu, type BenchServer } from './lib.ts';
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

/** CPU seconds of the PostgreSQL backends serving this server's database (readable in /proc: same machine). */
async function backendCpu(s: BenchServer): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (s.kind !== 'postgres') return out;
  const pids = await rows<{ pid: number }>(s.db.orm, sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
  for (const { pid } of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(pid), (Number(f[11]) + Number(f[12])) / 100);
    } catch {
      // Another machine, or gone.
    }
  }
  return out;
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
      const raw = await benchRawInsert(server, r.spans);
      ratios.push(r.spansPerSecond / raw.rowsPerSecond);
      console.log(`  raw multi-row INSERT of the same ${raw.rows} rows (100 per statement, each committed): ${Math.round(raw.rowsPerSecond)} rows/s; ingest / raw ${(r.spansPerSecond / raw.rowsPerSecond).toFixed(2)}`);
    }
  } finally {
    await server.close();
  }
}
console.log(`${kind} median of ${runs}: ${Math.round(median(results))} spans/s` + (ratios.length ? `; ingest / raw insert ${median(ratios).toFixed(2)}` : ''));
