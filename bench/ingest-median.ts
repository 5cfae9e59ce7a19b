/**
 * `node --import tsx bench/ingest-median.ts [pglite|postgres] [runs]`: the ingest
 * measurement of `npm run bench` only, repeated on a fresh server and database each run,
 * for comparing two versions of the code (run it in each checkout); prints every run and
 * the median. BENCH_CLIENTS and BENCH_IN_FLIGHT as for the bench; PostgreSQL from
 * BENCH_DATABASE_URL or TEST_DATABASE_URL (default: the local server); BENCH_DURABLE=0 runs PGlite
 * without fsync, to compare.
 */
import { median, startBenchServer } from './lib.ts';
import { benchIngest } from './traces.ts';

const kind = (process.argv[2] ?? 'pglite') as 'pglite' | 'postgres';
// BENCH_DURABLE=0: PGlite without fsync, to compare with the durable default.
const durable = process.env.BENCH_DURABLE !== '0';
const runs = Number(process.argv[3] ?? '5');
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const clients = Number(process.env.BENCH_CLIENTS ?? '2');
const inFlight = Number(process.env.BENCH_IN_FLIGHT ?? '2');

const results: number[] = [];
for (let run = 0; run < runs; run++) {
  const server = await startBenchServer(kind, pgUrl, { durable });
  try {
    const r = await benchIngest(server, { requests: 500, clients, inFlight, firstTrace: 0, salt: 1 });
    results.push(r.spansPerSecond);
    console.log(`${kind} run ${run + 1}: ${Math.round(r.spansPerSecond)} spans/s (request p50 ${r.requestP50.toFixed(1)} ms)`);
  } finally {
    await server.close();
  }
}
console.log(`${kind} median of ${runs}: ${Math.round(median(results))} spans/s`);
