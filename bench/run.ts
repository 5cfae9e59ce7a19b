/**
 * `npm run bench`: speed and memory targets, measured on this machine. Prints a table and
 * writes bench/results/<date>.json. BENCH_SCALE (default 1) scales the data sizes;
 * BENCH_DATABASES (default "pglite,postgres") picks the databases; PostgreSQL comes
 * from BENCH_DATABASE_URL or TEST_DATABASE_URL (skipped when neither is set and the
 * local server does not answer). BENCH_ONLY=traces|grpc|alerts|privacy|detail|compression|webhooks|evaluators|pii|overload|flood|backup|datasets|experiments|experiments-run|experiments-compare|views|span-jumps|first-load|topics|simulations|scale|partitions|soak
 * picks benchmarks (soak runs only when named: the robustness tests at their long sizes; backup: BENCH_BACKUP_MIB, default 1024, the PGlite database's size; privacy:
 * BENCH_PRIVACY_REQUESTS_OFF, default 50, and BENCH_PRIVACY_REQUESTS, default 30, 100-span requests per round, BENCH_PRIVACY_ROUNDS, default 5, rounds of each mode measured after one that is not; alerts: BENCH_ALERTS_TRACES, default 1,000,000 trace summaries of 5 spans; scale: BENCH_SCALE_SPANS, default 5,000,000, PostgreSQL only, with a streaming replica when replication connections are allowed; partitions: BENCH_CONVERSION_SPANS, default 1,000,000, the in-place conversion, and BENCH_SCALE_SPANS for the day drop, PostgreSQL only).
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { median, startBenchServer, table } from './lib.ts';
import { DETAIL_TRACE_ID, benchDetail, benchIngest, benchRawInsert, benchSearch } from './traces.ts';
import { benchWeb } from './web.ts';
import { benchFirstLoad, seedTraceList, SLOW_NETWORK } from './first-load.ts';
import { benchRetention } from './retention.ts';
import { benchEvaluators } from './evaluators.ts';
import { benchAnalytics } from './analytics.ts';
import { benchAlerts } from './alerts.ts';
import { benchPii, corpusTable, typedTable } from './pii.ts';
import { benchDetectCpu } from './pii-detect-cpu.ts';
import { benchPrivacy } from './privacy.ts';
import { benchWebhooks } from './webhooks.ts';
import { benchExperiments } from './experiments.ts';
import { benchExperimentsCompare } from './experiments-compare.ts';
import { benchExperimentsRun, startSlowProvider } from './experiments-run.ts';
import { benchFlood, benchOverload } from './overload.ts';
import { benchDetailDownloads } from './detail-downloads.ts';
import { benchBackup } from './backup.ts';
import { benchCompression, ENCODINGS } from './compression.ts';
import { benchDatasets } from './datasets.ts';
import { benchViews } from './views.ts';
import { benchSpanJumps } from './span-jumps.ts';
import { benchSoak } from './soak.ts';
import { benchTopics } from './topics.ts';
import { benchSimulations } from './simulations.ts';
import { benchScale } from './scale.ts';
import { benchConversion, benchDayDrop } from './partitions.ts';

const scale = Number(process.env.BENCH_SCALE ?? '1');
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const kinds = (process.env.BENCH_DATABASES ?? 'pglite,postgres').split(',').map((k) => k.trim()) as ('pglite' | 'postgres')[];
const only = process.env.BENCH_ONLY?.split(',');
// Client processes and requests in flight per client (several applications exporting at once).
const clients = Number(process.env.BENCH_CLIENTS ?? '2');
const inFlight = Number(process.env.BENCH_IN_FLIGHT ?? '2');
const ingestLabel = `ingest OTLP protobuf, 100-span requests, ${clients} client processes x ${inFlight} in flight`;
const grpcLabel = `ingest OTLP over gRPC, 100-span requests, ${clients} client processes x ${inFlight} in flight`;

async function postgresAnswers(): Promise<boolean> {
  const c = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

const results: Record<string, unknown> = { date: new Date().toISOString(), scale, node: process.version, cpus: (await import('node:os')).cpus().length };
const printed: Record<string, string | number>[] = [];
const row = (bench: string, database: string, metric: string, value: number | string, unit: string, target = '') => {
  const shown = typeof value === 'string' || !Number.isFinite(value) ? String(value) : Number(value.toFixed(value < 10 ? 2 : 0));
  printed.push({ bench, database, metric, value: shown, unit, target });
};

for (const kind of kinds) {
  if (kind === 'postgres' && !(await postgresAnswers())) {
    console.error(`PostgreSQL at ${pgUrl} does not answer: skipping it`);
    continue;
  }
  if (!only || only.includes('traces')) {
    const server = await startBenchServer(kind, pgUrl);
    try {
      const target = kind === 'pglite' ? 5000 : 10000;
      // Three rounds of 500 requests (the first 150k spans of the search data set); the median round counts.
      const requests = Math.round(500 * scale);
      const rounds = [];
      for (let round = 0; round < 3; round++) {
        rounds.push(await benchIngest(server, { requests, clients, inFlight, firstTrace: round * requests * 20, salt: 1 }));
      }
      const ingest = [...rounds].sort((a, b) => a.spansPerSecond - b.spansPerSecond)[1];
      const loaded = rounds.reduce((n, r) => n + r.spans, 0);
      row(ingestLabel, kind, 'spans/s (ack after commit), median of 3 rounds', ingest.spansPerSecond, 'spans/s', `>= ${target}`);
      row(ingestLabel, kind, 'each round', rounds.map((r) => Math.round(r.spansPerSecond)).join(' / '), 'spans/s');
      row(ingestLabel, kind, 'request p50 (median round)', ingest.requestP50, 'ms');
      if (kind === 'pglite') {
        // What durability costs: the same rounds on a PGlite that does not fsync (its default, and Spyglass's before 2026-11-24).
        const relaxed = await startBenchServer(kind, pgUrl, { durable: false });
        try {
          const relaxedRounds = [];
          for (let round = 0; round < 3; round++) {
            relaxedRounds.push(await benchIngest(relaxed, { requests, clients, inFlight, firstTrace: round * requests * 20, salt: 1 }));
          }
          const relaxedIngest = [...relaxedRounds].sort((a, b) => a.spansPerSecond - b.spansPerSecond)[1];
          row(ingestLabel, 'pglite, no fsync', 'spans/s, median of 3 rounds (not durable; for comparison)', relaxedIngest.spansPerSecond, 'spans/s');
          row(ingestLabel, kind, 'durable / no fsync', ingest.spansPerSecond / relaxedIngest.spansPerSecond, 'x');
          results.ingest_pglite_without_fsync = { ingest: relaxedIngest, rounds: relaxedRounds };
        } finally {
          await relaxed.close();
        }
      }
      const raw = await benchRawInsert(server, 20_000);
      row('raw multi-row INSERT of the same rows', kind, 'rows/s', raw.rowsPerSecond, 'rows/s');
      row('ingest / raw insert', kind, 'ratio', ingest.spansPerSecond / raw.rowsPerSecond, 'x');

      // Fill to 100k traces / 500k spans (scaled), then search.
      const targetSpans = Math.round(500_000 * scale);
      if (targetSpans > loaded) {
        await benchIngest(server, { requests: Math.ceil((targetSpans - loaded) / 100), clients, inFlight, firstTrace: 10_000_000, salt: 2 });
      }
      // What the periodic maintenance (PGlite) or autovacuum (PostgreSQL) does in steady state.
      await server.app.services.traces.refreshStatistics();
      const search = await benchSearch(server, 200);
      row(`search at ${Math.round(100_000 * scale)} traces / ${targetSpans} spans`, kind, 'p50', search.p50, 'ms');
      row(`search at ${Math.round(100_000 * scale)} traces / ${targetSpans} spans`, kind, 'p95', search.p95, 'ms', '<= 100');
      const detail = await benchDetail(server, 10_000, 10);
      row('trace detail, 10,000 spans', kind, 'p50', detail.p50, 'ms', '<= 500');
      row('trace detail, 10,000 spans', kind, 'response size', detail.bytes / 1024 / 1024, 'MiB');
      row('server process', kind, 'RSS after the run', process.memoryUsage().rss / 1024 / 1024, 'MiB');
      // The web app in Chromium on the same data (100k traces, the 10,000-span trace).
      const web = await benchWeb(server, DETAIL_TRACE_ID);
      if (web) {
        const traces = `${Math.round(100_000 * scale)} traces`;
        row('web app: JavaScript of the first page (sign-in)', kind, 'gzip', web.signInJsGzip / 1024, 'KiB', '< 350 KB');
        row('web app: JavaScript of the traces list', kind, 'gzip', web.listJsGzip / 1024, 'KiB');
        row(`web app: traces list first render, ${traces}`, kind, 'p50 of 5', web.listFirstRender, 'ms');
        row(`web app: traces list scrolled 20 pages, ${traces}`, kind, `${web.rowsLoaded} rows`, web.scroll2000Rows, 'ms');
        row('web app: 10,000-span trace opened', kind, 'p50 of 5', web.traceOpen, 'ms', '< 1500');
        row('web app: 10,000-span tree, End then Home', kind, 'keyboard', web.treeEndHome, 'ms');
      } else console.error('no chromium at /usr/bin/chromium: skipping the web app bench');
      results[`traces_${kind}`] = { ingest, ingestRounds: rounds, raw, ratio: ingest.spansPerSecond / raw.rowsPerSecond, search, detail, web, rssMiB: process.memoryUsage().rss / 1024 / 1024 };
    } finally {
      await server.close();
    }
  }

  if (!only || only.includes('grpc')) {
    // OTLP over gRPC against OTLP/HTTP protobuf: the same requests, on a server of its own (the
    // traces bench's database keeps its size), rounds interleaved so both meet the same database state.
    const server = await startBenchServer(kind, pgUrl);
    try {
      const requests = Math.round(500 * scale);
      const grpcRounds = [];
      const httpRounds = [];
      for (let round = 0; round < 3; round++) {
        const firstTrace = round * requests * 40;
        grpcRounds.push(await benchIngest(server, { requests, clients, inFlight, firstTrace, salt: 3, transport: 'grpc' }));
        httpRounds.push(await benchIngest(server, { requests, clients, inFlight, firstTrace: firstTrace + requests * 20, salt: 3 }));
      }
      const grpcIngest = [...grpcRounds].sort((a, b) => a.spansPerSecond - b.spansPerSecond)[1];
      const httpIngest = [...httpRounds].sort((a, b) => a.spansPerSecond - b.spansPerSecond)[1];
      row(grpcLabel, kind, 'spans/s (ack after commit), median of 3 rounds', grpcIngest.spansPerSecond, 'spans/s', '>= OTLP/HTTP');
      row(grpcLabel, kind, 'each round', grpcRounds.map((r) => Math.round(r.spansPerSecond)).join(' / '), 'spans/s');
      row(grpcLabel, kind, 'OTLP/HTTP protobuf rounds between them', httpRounds.map((r) => Math.round(r.spansPerSecond)).join(' / '), 'spans/s');
      row(grpcLabel, kind, 'gRPC / HTTP (medians)', grpcIngest.spansPerSecond / httpIngest.spansPerSecond, 'x', '>= 1');
      row(grpcLabel, kind, 'request p50 gRPC / HTTP (median rounds)', `${grpcIngest.requestP50.toFixed(1)} / ${httpIngest.requestP50.toFixed(1)}`, 'ms');
      results[`ingest_grpc_${kind}`] = { grpc: grpcIngest, http: httpIngest, grpcRounds, httpRounds };
    } finally {
      await server.close();
    }
  }

  if (!only || only.includes('privacy')) {
    // Privacy at ingest: spans carrying 2 KB of text with personal data, privacy off against
    // masking and hashing every entity type; rounds interleaved on one server.
    // A 100-span request masked takes seconds of CPU: on a loaded machine the default 10 s for
    // a request's headers would close connections queued behind it, and the decode worker (at
    // nice 10) can miss its 30 s deadline (503), which is not what this measures.
    const server = await startBenchServer(kind, pgUrl, {
      env: {
        SPYGLASS_HEADERS_TIMEOUT_SECONDS: '300',
        SPYGLASS_REQUEST_TIMEOUT_SECONDS: '600',
        SPYGLASS_INGEST_DECODE_TIMEOUT_SECONDS: '600',
        // Detection workers (default: one per core); 0 runs detection on the main thread, to compare.
        ...(process.env.SPYGLASS_PRIVACY_DETECTION_THREADS ? { SPYGLASS_PRIVACY_DETECTION_THREADS: process.env.SPYGLASS_PRIVACY_DETECTION_THREADS } : {}),
      },
    });
    try {
      const label = `ingest OTLP protobuf, 100 spans of 2 KB text each, ${clients} client processes x ${inFlight} in flight: privacy at ingest`;
      // Rounds of about the same length in every mode (off: 50 requests at ~1,700 spans/s,
      // masked: 30 at ~900, about 3 s each on 2 cores): a round's first and last requests run
      // with fewer in flight than the clients keep (a client's last turn holds one), a fixed
      // stretch that weighs on a 1-s round three times as much as on a 3-s one (with 10 masked
      // requests a round, mask / off read 0.39-0.45 where 30 read 0.54-0.57, same code).
      const p = await benchPrivacy(server, {
        requestsOff: Math.max(2, Math.round(Number(process.env.BENCH_PRIVACY_REQUESTS_OFF ?? '50') * scale)),
        requestsOn: Math.max(2, Math.round(Number(process.env.BENCH_PRIVACY_REQUESTS ?? '30') * scale)),
        rounds: Number(process.env.BENCH_PRIVACY_ROUNDS ?? '5'),
        warmUpRounds: 1,
        clients,
        inFlight,
      });
      row(label, kind, `off: spans/s, median of ${p.rounds.off.length} rounds`, p.spansPerSecond.off, 'spans/s');
      row(label, kind, 'mask, every entity type: spans/s', p.spansPerSecond.mask, 'spans/s');
      row(label, kind, 'hash, every entity type: spans/s', p.spansPerSecond.hash, 'spans/s');
      row(label, kind, 'mask / off', p.spansPerSecond.mask / p.spansPerSecond.off, 'x', '>= 0.5');
      row(label, kind, 'hash / off', p.spansPerSecond.hash / p.spansPerSecond.off, 'x', '>= 0.5');
      row(label, kind, 'rounds off / mask / hash', `${p.rounds.off.join(' ')} / ${p.rounds.mask.join(' ')} / ${p.rounds.hash.join(' ')}`, 'spans/s');
      row(label, kind, 'request p50 off / mask / hash', `${p.requestP50.off.toFixed(0)} / ${p.requestP50.mask.toFixed(0)} / ${p.requestP50.hash.toFixed(0)}`, 'ms');
      // The server's CPU time per span (all its threads, and PostgreSQL's backends): the ratio ingest reaches when CPU-bound, readable under load.
      row(label, kind, `server CPU per span off / mask / hash, median of ${p.rounds.off.length} rounds`, `${p.cpuMsPerSpan.off.toFixed(2)} / ${p.cpuMsPerSpan.mask.toFixed(2)} / ${p.cpuMsPerSpan.hash.toFixed(2)}`, 'ms');
      row(label, kind, 'of it on the main thread off / mask / hash', `${p.mainCpuMsPerSpan.off.toFixed(2)} / ${p.mainCpuMsPerSpan.mask.toFixed(2)} / ${p.mainCpuMsPerSpan.hash.toFixed(2)}`, 'ms');
      row(label, kind, 'CPU per span: off / mask', p.cpuMsPerSpan.off / p.cpuMsPerSpan.mask, 'x', '>= 0.5');
      row(label, kind, 'CPU per span: off / hash', p.cpuMsPerSpan.off / p.cpuMsPerSpan.hash, 'x', '>= 0.5');
      results[`privacy_${kind}`] = {
        ...p,
        maskOverOff: p.spansPerSecond.mask / p.spansPerSecond.off,
        hashOverOff: p.spansPerSecond.hash / p.spansPerSecond.off,
        maskOverOffByCpu: p.cpuMsPerSpan.off / p.cpuMsPerSpan.mask,
        hashOverOffByCpu: p.cpuMsPerSpan.off / p.cpuMsPerSpan.hash,
      };
      if (!results.privacy_detection_cpu) {
        // What masking costs per span, in this process's CPU time (load disturbs it less than the rates above).
        const d = benchDetectCpu();
        for (const [part, ms] of Object.entries(d.msPer2kb)) row('PII detection per 2 KB text of the privacy bench, CPU time, median of 5 runs of 200 texts', 'in-process', part, ms, 'ms');
        results.privacy_detection_cpu = d;
      }
    } finally {
      await server.close();
    }
  }

  if (!only || only.includes('views')) {
    // The threads page's data (a 200-turn thread) and the users page at 10,000 end users.
    const server = await startBenchServer(kind, pgUrl);
    try {
      const v = await benchViews(server, { turns: Math.round(200 * scale), users: Math.round(10_000 * scale), tracesPerUser: 3, runs: Number(process.env.BENCH_VIEWS_RUNS ?? '15') });
      const name = `threads and users pages (API), ${v.users} users / ${v.traces} traces`;
      for (const [shape, r] of Object.entries(v.results)) {
        row(name, kind, `${shape}: median`, r.p50, 'ms', shape.startsWith('users') || shape.includes('in the browser') ? '< 1000' : '');
        row(name, kind, `${shape}: p95`, r.p95, 'ms');
      }
      results[`views_${kind}`] = v;
    } finally {
      await server.close();
    }
  }

  if (!only || only.includes('first-load')) {
    // The web app's first load in a fresh browser profile: the traces list of 100,000 traces, rows drawn.
    const server = await startBenchServer(kind, pgUrl);
    try {
      const traces = Math.round(100_000 * scale);
      const s0 = performance.now();
      await seedTraceList(server, traces);
      console.error(`first-load bench (${kind}): ${traces} traces made in ${((performance.now() - s0) / 1000).toFixed(0)} s`);
      const f = await benchFirstLoad(server, Number(process.env.BENCH_FIRST_LOAD_RUNS ?? '5'));
      if (f) {
        const name = `web app: first load of the traces list (${traces.toLocaleString('en-US')} traces), fresh profile`;
        const slow = `${SLOW_NETWORK.mbitPerSecond} Mbit/s, ${SLOW_NETWORK.latencyMs} ms RTT`;
        row(name, kind, 'loopback: rows drawn, median', f.loopback.rowsDrawn, 'ms', '<= 1000');
        row(name, kind, 'loopback: first contentful paint, median', f.loopback.firstContentfulPaint, 'ms');
        row(name, kind, `${slow}: rows drawn, median`, f.slow.rowsDrawn, 'ms', '<= 2500');
        row(name, kind, `${slow}: first contentful paint, median`, f.slow.firstContentfulPaint, 'ms');
        row(name, kind, 'JavaScript files / requests one after another', `${f.loopback.scripts} / ${f.loopback.chainDepth}`, '');
        console.error(`first-load bench (${kind}): rows drawn, loopback ${f.loopback.runs.join(' / ')} ms, slow network ${f.slow.runs.join(' / ')} ms`);
        console.error(`first-load bench (${kind}): the median slow load's longest chain of requests:\n  ${f.slow.medianChain.join('\n  ')}`);
        results[`first_load_${kind}`] = f;
      } else console.error('no chromium at /usr/bin/chromium: skipping the first-load bench');
    } finally {
      await server.close();
    }
  }

  if (!only || only.includes('span-jumps')) {
    // Finding things in a 10,000-span trace in Chromium: each jump's time in the page.
    const server = await startBenchServer(kind, pgUrl);
    try {
      const j = await benchSpanJumps(server, { spans: 10_000, jumps: Number(process.env.BENCH_JUMPS ?? '10') });
      if (j) {
        for (const [what, r] of Object.entries(j.results)) {
          row(`web app: ${j.spans.toLocaleString('en-US')}-span trace, ${what}`, kind, `median of ${r.n}`, r.p50, 'ms', what.startsWith('find') || what.includes('level') || what.includes('expand') ? '' : '< 100');
          row(`web app: ${j.spans.toLocaleString('en-US')}-span trace, ${what}`, kind, 'worst', r.max, 'ms');
        }
        results[`span_jumps_${kind}`] = j;
      } else console.error('no chromium at /usr/bin/chromium: skipping the span jumps bench');
    } finally {
      await server.close();
    }
  }

  if (!only || only.includes('alerts')) {
    // A fresh database: trace summaries (5 spans each) over the last 30 days, then alert rules over them.
    const server = await startBenchServer(kind, pgUrl, { env: { SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1' } });
    try {
      const a = await benchAlerts(server, {
        traces: Math.round(Number(process.env.BENCH_ALERTS_TRACES ?? '1000000') * scale),
        // The preview's target is at 1M spans: 200,000 traces of 5 spans, measured before the rest is loaded.
        previewTraces: Math.round(Number(process.env.BENCH_ALERTS_PREVIEW_TRACES ?? '200000') * scale),
        rules: 200,
        manyRules: 1000,
        rounds: 3,
        sustainedMinutes: Number(process.env.BENCH_ALERTS_SUSTAINED_MINUTES ?? '3'),
      });
      const name = `alerts, ${a.traces} traces / ${a.spans} spans over 30 days`;
      row(name, kind, `${a.rules} rules, one window each: CPU of the server process per minute (as if every rule ran every minute)`, a.cpuShareOfOneCore * 100, '% of a core', '<= 10');
      row(name, kind, `${a.rules} rules, one window each: wall time of the round`, a.roundWallSeconds, 's');
      row(name, kind, `${a.rules} rules due every minute for ${a.sustained.minutes} min, the real scheduler: CPU of the server process per minute of wall time`, a.sustained.cpuShareOfOneCore * 100, '% of a core', '<= 10');
      row(name, kind, `the same process with no rule due (idle), per minute of wall time`, a.sustained.idleShareOfOneCore * 100, '% of a core');
      for (const [rule, r] of Object.entries(a.replay)) row(name, kind, `replay 30 days of hourly windows (${r.windows}), ${rule}`, r.seconds, 's', '<= 1');
      row(name, kind, 'notification delay after the window closes (3 samples, max)', Math.max(...a.notificationDelaySeconds), 's', '<= 60');
      const atTarget = `alerts preview, ${a.previewAt.traces} traces / ${a.previewAt.spans} spans over 30 days`;
      for (const [rule, p] of Object.entries(a.previewAt.preview)) {
        row(atTarget, kind, `preview of 30 days (${p.windows} windows), ${rule}: median of 3`, median(p.seconds), 's', '<= 1');
        row(atTarget, kind, `the same: CPU (server threads${kind === 'postgres' ? ' + its PostgreSQL backends' : ''}), median of 3`, median(p.cpuSeconds), 's');
      }
      for (const [rule, p] of Object.entries(a.preview)) row(name, kind, `preview of 30 days (${p.windows} windows), ${rule}: median of 3 (at the bigger data set)`, median(p.seconds), 's');
      row(name, kind, `${a.manyRules.rules} rules due at once: one poll, wall`, a.manyRules.seconds, 's', '< 60');
      row(name, kind, `${a.manyRules.rules} rules due at once: CPU of the poll per minute (as if every rule ran every minute)`, a.manyRules.cpuShareOfOneCore * 100, '% of a core');
      row(name, kind, `${a.manyRules.rules} rules due at once: notification delay after the window closes`, Math.max(...a.manyRules.notificationDelaySeconds), 's', '<= 60');
      results[`alerts_${kind}`] = a;
    } finally {
      await server.close();
    }
  }

  if (kind === 'postgres' && (!only || only.includes('scale'))) {
    // A fresh database at a busy team's size (5M spans, 1M traces over 30 days), and a replica of it.
    const server = await startBenchServer(kind, pgUrl);
    try {
      const r = await benchScale(server, pgUrl, { spans: Math.round(Number(process.env.BENCH_SCALE_SPANS ?? '5000000') * scale), searches: 160, runs: 10, replicaRounds: 20 });
      const name = `${r.traces.toLocaleString('en-US')} traces / ${r.spans.toLocaleString('en-US')} spans over 30 days`;
      row(`${name}: search, mixed queries`, kind, 'p50', r.search.p50, 'ms');
      row(`${name}: search, mixed queries`, kind, 'p95', r.search.p95, 'ms', '<= 100');
      for (const [shape, a] of Object.entries(r.analytics)) row(`${name}: analytics ${shape}`, kind, 'median', a.p50, 'ms', shape.includes('model') ? '<= 500' : '<= 300');
      row(`${name}: a ${r.detail.spans.toLocaleString('en-US')}-span trace's detail`, kind, 'median', r.detail.p50, 'ms', '<= 500');
      if (r.replica) {
        const split = `${name}: a second server reading from a streaming replica, ${r.replica.requests} searches and analytics requests`;
        row(split, kind, 'statements on the replica, as the server process counts them (less its idle pollers)', r.replica.appShare === null ? '-' : r.replica.appShare * 100, '%', '>= 95');
        row(split, kind, "transactions on the replica, as each PostgreSQL server counts them (less the process's idle ones)", r.replica.serverShare === null ? '-' : r.replica.serverShare * 100, '%', '>= 95');
        for (const p of r.replica.onPrimary.slice(0, 8)) console.error(`scale bench: on the primary during the load ${p.load}x (idle ${p.idle}x): ${p.statement}`);
      } else row(`${name}: replica split`, kind, 'no replica could be made (replication connections from 127.0.0.1 allowed? pg_basebackup?)', '-', '');
      results.scale_postgres = r;
    } finally {
      await server.close();
    }
  }

  if (kind === 'postgres' && (!only || only.includes('partitions'))) {
    // Day partitions: an unpartitioned installation converted in place; a day dropped by retention at 5M spans.
    const spans = Math.round(Number(process.env.BENCH_CONVERSION_SPANS ?? '1000000') * scale);
    const c = await benchConversion(pgUrl, spans);
    const cname = `in-place conversion to day partitions, ${c.spans.toLocaleString('en-US')} spans (migrations ${c.migrations.join(', ')})`;
    row(cname, kind, 'migrations', c.seconds, 's');
    row(cname, kind, 'rows kept (traces, spans, evaluations, events, annotations)', JSON.stringify(c.after) === JSON.stringify(c.before) ? 'all' : `${JSON.stringify(c.before)} -> ${JSON.stringify(c.after)}`, '', 'all');
    row(cname, kind, 'indexes of the old tables missing after', c.indexesMissing.length ? c.indexesMissing.join(' ') : 0, '', '0');
    row(cname, kind, `a search (user filter, ${c.searchHits} hits) answers the same`, c.searchSame ? 'yes' : 'no', '', 'yes');
    results.partitions_conversion_postgres = c;
    const d = await benchDayDrop(pgUrl, Math.round(Number(process.env.BENCH_SCALE_SPANS ?? '5000000') * scale));
    const dname = `retention drops a day (${d.tracesPerDay.toLocaleString('en-US')} traces, their spans, evaluations, annotations) of ${d.spans.toLocaleString('en-US')} spans over 30 days`;
    row(dname, kind, `whole sweep, median of ${d.sweepsMs.length} days`, d.sweepMedianMs / 1000, 's', '<= 1');
    row(dname, kind, `the DROP transaction alone, median of ${d.dropsMs.length}`, d.dropMedianMs, 'ms');
    results.partitions_day_drop_postgres = d;
  }

  if (!only || only.includes('analytics')) {
    // A fresh database: 500,000 spans (scaled) spread over the last 30 days.
    const server = await startBenchServer(kind, pgUrl);
    try {
      const a = await benchAnalytics(server, { spans: Math.round(500_000 * scale), runs: Number(process.env.BENCH_ANALYTICS_RUNS ?? '15'), clients: 4 });
      const name = `analytics timeseries, ${a.traces} traces / ${a.spans} spans over 30 days`;
      for (const [shape, r] of Object.entries(a.results)) {
        row(name, kind, `${shape}: median`, r.p50, 'ms', shape === '30 days, by day' ? '< 300' : '');
        row(name, kind, `${shape}: p95`, r.p95, 'ms');
      }
      results[`analytics_${kind}`] = a;
    } finally {
      await server.close();
    }
  }
}

for (const kind of kinds) {
  if (only && !only.includes('webhooks')) break;
  if (kind === 'postgres' && !(await postgresAnswers())) continue;
  const w = await benchWebhooks(kind, pgUrl, { latencyEvents: 200, events: Math.round(10_000 * scale) });
  const label = 'webhook event to delivery (idle server, an event every 50 ms, receiver on loopback)';
  row(label, kind, 'p50', w.p50, 'ms', '<= 50');
  row(label, kind, 'p99', w.p99, 'ms');
  row(label, kind, 'p50 / p99 after the write was answered', `${w.afterAnswerP50} / ${w.afterAnswerP99}`, 'ms');
  row(`webhook delivery of a ${w.events}-event backlog, batches of 50`, kind, 'events/s', w.eventsPerSecond, 'events/s', '>= 1000');
  results[`webhooks_${kind}`] = w;
}

// Experiments logged by an SDK (issue 24): a run growing to 10,000 rows in posts of 100 new rows.
for (const kind of kinds) {
  if (only && !only.includes('experiments')) break;
  if (kind === 'postgres' && !(await postgresAnswers())) continue;
  const server = await startBenchServer(kind, pgUrl);
  try {
    const e = await benchExperiments(server, { rows: Math.round(10_000 * scale), perPost: 100 });
    const label = `experiment log_results, ${e.posts} posts of ${e.perPost} rows + ${e.perPost} evaluations, run growing to ${e.rows} rows`;
    row(label, kind, 'first posts (median of 5)', e.firstPostMs, 'ms');
    row(label, kind, 'last posts (median of 5)', e.lastPostMs, 'ms');
    row(label, kind, 'last / first', e.ratio, 'x', 'about 1 (proportional to the post)');
    row(`experiment run read, ${e.rows} rows + ${e.rows} evaluations (${Math.round(e.readBytes / 1024)} KiB)`, kind, 'median of 5', e.readMs, 'ms', '<= 1000');
    results[`experiments_${kind}`] = e;
  } finally {
    await server.close();
  }
}

// Comparing two runs of 10,000 rows: aggregates and intervals through the API.
for (const kind of kinds) {
  if (only && !only.includes('experiments-compare')) break;
  if (kind === 'postgres' && !(await postgresAnswers())) continue;
  const server = await startBenchServer(kind, pgUrl);
  try {
    const c = await benchExperimentsCompare(server, { rows: Math.round(10_000 * scale), evaluators: 2, reads: Number(process.env.BENCH_READS ?? '7') });
    const label = `experiment comparison, two runs of ${c.rows} rows x ${c.evaluators} evaluators`;
    row(label, kind, `compare right after both runs were written: aggregates + paired bootstrap (median of ${c.reads})`, c.compareFreshMs, 'ms', '<= 300');
    row(label, kind, `compare again, the runs unchanged (median of ${c.reads})`, c.compareMs, 'ms', '<= 300');
    row(label, kind, `one run's summary with intervals (median of ${c.reads})`, c.summaryMs, 'ms');
    row(label, kind, `comparison page's first read: 100 rows side by side (median of ${c.reads})`, c.compareRowsMs, 'ms', '<= 1000 with the page');
    row(label, kind, `run page's first read: 100 lines with their evaluations (median of ${c.reads})`, c.runRowsMs, 'ms', '<= 1000 with the page');
    row(label, kind, `run page filtered (an evaluator failed) and sorted (latency) by the server, first 100 (median of ${c.reads})`, c.filteredRowsMs, 'ms');
    row(label, kind, `run page scrolled to its last 100 lines (median of ${c.reads})`, c.lastRowsMs, 'ms');
    if (c.comparePageMs !== null && c.runPageMs !== null) {
      row(label, kind, `comparison page in Chromium: navigation to first rows drawn (median of ${c.reads})`, c.comparePageMs, 'ms', '<= 1000');
      row(label, kind, `run page in Chromium: navigation to first rows drawn (median of ${c.reads})`, c.runPageMs, 'ms', '<= 1000');
    } else console.error('no chromium at /usr/bin/chromium: skipping the experiment pages in the browser');
    row(label, kind, 'verdicts', c.verdicts.join(', '), '');
    results[`experiments_compare_${kind}`] = c;
  } finally {
    await server.close();
  }
}

// Experiments run by the platform: 1,000 rows, one prompt target (a provider answering after 200 ms), one evaluator, 16 at once.
for (const kind of kinds) {
  if (only && !only.includes('experiments-run')) break;
  if (kind === 'postgres' && !(await postgresAnswers())) continue;
  const provider = await startSlowProvider(200);
  const server = await startBenchServer(kind, pgUrl, { env: { OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: `${provider.url}/v1` } });
  try {
    const e = await benchExperimentsRun(server, { rows: Math.round(1_000 * scale), concurrency: 16 });
    const label = `platform experiment run, ${e.rows} rows x 1 prompt target (provider answers in 200 ms) + 1 evaluator, concurrency ${e.concurrency}`;
    row(label, kind, 'start to completed', e.seconds, 's', `<= 15 (floor ${e.floorSeconds.toFixed(1)})`);
    row(label, kind, 'failed cells', e.failedCells, '', '0');
    results[`experiments_run_${kind}`] = e;
  } finally {
    await server.close();
    await provider.close();
  }
}

// Retention at scale (issue 15): the sweep removing 1,000,000 old spans (scaled) while ingest runs.
for (const kind of kinds) {
  if (only && !only.includes('retention')) break;
  if (kind === 'postgres' && !(await postgresAnswers())) continue;
  const server = await startBenchServer(kind, pgUrl);
  try {
    const spans = Math.round(1_000_000 * scale);
    const rate = Number(process.env.BENCH_RETENTION_RATE ?? '20');
    const r = await benchRetention(server, { spans, rate, baselineSeconds: 20 });
    const name = `retention sweep of ${r.spansBefore.toLocaleString('en')} old spans, ingest at ${rate} x 100 spans/s`;
    row(name, kind, 'sweep time', r.sweepSeconds, 's', '<= 30');
    row(name, kind, 'traces deleted / spans left', `${r.tracesDeleted} / ${r.spansLeft}`, '');
    row(name, kind, 'ingest p95 without / during the sweep', `${r.baseline.p95.toFixed(1)} / ${r.duringSweep.p95.toFixed(1)}`, 'ms');
    row(name, kind, 'ingest p95 change', r.p95Change * 100, '%', '<= 20');
    row(name, kind, 'ingest p50 without / during the sweep', `${r.baseline.p50.toFixed(1)} / ${r.duringSweep.p50.toFixed(1)}`, 'ms');
    results[`retention_${kind}`] = r;
  } finally {
    await server.close();
  }
}

// Trace detail downloads (issue 13): N at once of a 10,000-span trace, the server in its own process.
for (const kind of kinds) {
  if (only && !only.includes('detail')) continue;
  if (kind === 'postgres' && !(await postgresAnswers())) continue;
  const concurrent = Number(process.env.BENCH_DETAIL_CONCURRENT ?? '8');
  const bin = process.env.BENCH_DETAIL_BIN;
  const encoding = (process.env.BENCH_DETAIL_ENCODING ?? 'identity') as 'identity' | 'gzip' | 'br';
  const d = await benchDetailDownloads(kind, pgUrl, { concurrent, rounds: Number(process.env.BENCH_DETAIL_ROUNDS ?? '3'), bin, encoding });
  const label = `trace detail, 10,000 spans (${(d.bytes / 1024 / 1024).toFixed(1)} MiB)${encoding === 'identity' ? '' : `, ${encoding}`}${bin ? ` [${bin}]` : ''}`;
  row(label, kind, 'one at a time: first byte / last byte, p50', `${d.alone.ttfbP50.toFixed(0)} / ${d.alone.totalP50.toFixed(0)}`, 'ms');
  row(label, kind, `${concurrent} at once: first byte p50 / max`, `${d.ttfbP50.toFixed(0)} / ${d.ttfbMax.toFixed(0)}`, 'ms');
  row(label, kind, `${concurrent} at once: last byte p50 / max`, `${d.totalP50.toFixed(0)} / ${d.totalMax.toFixed(0)}`, 'ms');
  row(label, kind, 'server RSS before the downloads / peak / 1 s after', `${d.rssBeforeMiB.toFixed(0)} / ${d.peakRssMiB.toFixed(0)} / ${d.rssAfterMiB.toFixed(0)}`, 'MiB');
  row(label, kind, 'server peak RSS above before', d.peakRssMiB - d.rssBeforeMiB, 'MiB');
  row(label, kind, `server CPU (user+sys) per download, ${concurrent} at once`, d.cpuMsPerDownload, 'ms');
  results[`detail_downloads_${kind}`] = { ...d, bin: bin ?? null, encoding };
}

// Compressed answers: bytes on the wire and server CPU per answer, identity / gzip / br.
for (const kind of kinds) {
  if (!only?.includes('compression')) continue;
  if (kind === 'postgres' && !(await postgresAnswers())) continue;
  const bin = process.env.BENCH_COMPRESSION_BIN;
  const loadBefore = (await import('node:os')).loadavg()[0];
  const c = await benchCompression(kind, pgUrl, { rounds: Number(process.env.BENCH_COMPRESSION_ROUNDS ?? '5'), bin });
  const loadAfter = (await import('node:os')).loadavg()[0];
  for (const [answer, byEncoding] of Object.entries(c.answers)) {
    const label = `${answer}${bin ? ` [${bin}]` : ''}`;
    const identity = byEncoding.identity;
    for (const e of ENCODINGS) {
      const f = byEncoding[e];
      const asked = e === 'identity' ? 'no Accept-Encoding' : `Accept-Encoding: ${e}`;
      row(label, kind, `${asked}: bytes on the wire (content-encoding ${f.encoding})`, f.bytes / 1024, 'KiB');
      row(label, kind, `${asked}: server CPU (user+sys) per answer`, f.cpuMs, 'ms');
      row(label, kind, `${asked}: loopback first byte / last byte per answer`, `${f.firstByteMs.toFixed(0)} / ${f.wallMs.toFixed(0)}`, 'ms');
      row(label, kind, `${asked}: the bytes alone at 10 Mbit/s`, (f.bytes * 8) / 10_000_000, 's');
      if (e !== 'identity') row(label, kind, `${asked}: identity bytes / these, extra CPU`, `${(identity.bytes / f.bytes).toFixed(1)}x, ${(f.cpuMs - identity.cpuMs).toFixed(1)} ms`, 'x, ms');
    }
  }
  for (const l of c.levels) row(`compression level sweep (in process, sync): ${l.answer}`, kind, `${l.encoding} level ${l.level}: KiB / CPU ms`, `${(l.bytes / 1024).toFixed(0)} / ${l.cpuMs.toFixed(1)}`, 'KiB / ms');
  row('compression', kind, 'machine load average (1 min), before / after', `${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)}`, 'runnable');
  results[`compression_${kind}`] = { ...c, bin: bin ?? null, loadBefore, loadAfter };
}

// Start, memory at rest and overload (issue 13): the server in its own process, as users run it.
for (const kind of kinds) {
  if (only && !only.includes('overload')) continue;
  if (kind === 'postgres' && !(await postgresAnswers())) continue;
  const seconds = Number(process.env.BENCH_OVERLOAD_SECONDS ?? '30');
  const inFlight = Number(process.env.BENCH_OVERLOAD_IN_FLIGHT ?? '64');
  const loadBefore = (await import('node:os')).loadavg()[0];
  const o = await benchOverload(kind, pgUrl, { seconds, inFlight, clients: 2 });
  const loadAfter = (await import('node:os')).loadavg()[0];
  row('first start (empty), spawn to /healthz 200', kind, 'wall', o.firstStart.healthyMs, 'ms', '<= 3000');
  row('first start (empty), spawn to /readyz 200', kind, 'wall', o.firstStart.readyMs, 'ms');
  row('first start (empty)', kind, 'server CPU (user+sys) until ready', o.firstStart.cpuMs, 'ms');
  row('restart, spawn to /healthz 200', kind, 'wall', o.restart.healthyMs, 'ms', '<= 1500');
  row('restart, spawn to /readyz 200', kind, 'wall', o.restart.readyMs, 'ms');
  row('restart', kind, 'server CPU (user+sys) until ready', o.restart.cpuMs, 'ms');
  row('RSS at rest (5 s after first start)', kind, 'VmRSS', o.restMiB.afterFirstStart, 'MiB', '<= 400');
  row('RSS at rest (5 s after restart)', kind, 'VmRSS', o.restMiB.afterRestart, 'MiB', '<= 400');
  // BENCH_MEMORY_BREAKDOWN=1 (bench/memory-probe.cjs in the server's threads).
  for (const [when, m] of Object.entries(o.memory ?? {})) {
    const at = `memory breakdown (${when === 'peak' ? 'overload peak' : `5 s ${when === 'afterRestart' ? 'after restart' : 'after first start'}`})`;
    const r = m.resident;
    row(at, kind, 'resident: PGlite WebAssembly / JS heaps and other anon / malloc / files', `${r.wasm} / ${r.jsHeapsAndOther} / ${r.malloc} / ${r.files} (${m.rss})`, 'MiB');
    row(at, kind, `JS heap: main / PGlite worker / other threads (wasm committed ${m.wasmCommitted})`, `${m.jsHeap.main} / ${m.jsHeap.pglite} / ${m.jsHeap.others}`, 'MiB');
  }
  if (!o.overload) {
    // BENCH_OVERLOAD_SECONDS=0: the start and rest figures only
    row('start and rest', kind, 'machine load average (1 min), before / after', `${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)}`, 'runnable');
    results[`overload_${kind}`] = { ...o, loadBefore, loadAfter };
    continue;
  }
  const label = `overload: ${o.overload.inFlight} OTLP requests of 1,000 spans in flight, ${seconds} s`;
  row(label, kind, '/healthz p99', o.overload.healthzP99, 'ms', '<= 100');
  row(label, kind, `/healthz slowest (${o.overload.healthzCount} probes; 5 s: no answer)`, o.overload.healthzMax, 'ms', '< 1000');
  row(label, kind, '/readyz p99', o.overload.readyzP99, 'ms', '<= 100');
  row(label, kind, `search p95 (${o.overload.searches} searches)`, o.overload.searchP95, 'ms', '<= 300');
  row(label, kind, 'search p50', o.overload.searchP50, 'ms', '<= 300');
  row(label, kind, 'trace detail p95', o.overload.detailP95, 'ms', '<= 300');
  row(label, kind, 'spans/s admitted (acknowledged after commit)', o.overload.spansPerSecond, 'spans/s');
  row(label, kind, 'requests shed (503 + Retry-After) / accepted', `${o.overload.shed503} / ${o.overload.acceptedRequests}`, 'requests');
  row(label, kind, 'client errors (timeouts, resets)', o.overload.errors, 'requests', '0');
  row(label, kind, 'ingest request p50 (accepted)', o.overload.ingestP50, 'ms');
  row(label, kind, 'peak RSS', o.overload.peakRssMiB, 'MiB', '<= 600');
  row(label, kind, 'RSS 5 s after the load', o.overload.restAfterMiB, 'MiB');
  row(label, kind, 'machine load average (1 min), before / after', `${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)}`, 'runnable');
  results[`overload_${kind}`] = { ...o, loadBefore, loadAfter };
}

// Compressed flood (issue 15): gzip bodies that inflate to one giant attribute each, all at once.
for (const kind of kinds) {
  if (only && !only.includes('flood')) continue;
  if (kind === 'postgres' && !(await postgresAnswers())) continue;
  const requests = Number(process.env.BENCH_FLOOD_REQUESTS ?? '16');
  const loadBefore = (await import('node:os')).loadavg()[0];
  const f = await benchFlood(kind, pgUrl, { requests, attributeBytes: 60_000_000 });
  const loadAfter = (await import('node:os')).loadavg()[0];
  const label = `flood: ${requests} gzip OTLP requests at once, ${Math.round(f.wireBytes / 1000)} KB each inflating to ${Math.round(f.inflatedBytes / 1e6)} MB (one attribute)`;
  row(label, kind, 'RSS at rest before', f.restBeforeMiB, 'MiB');
  row(label, kind, 'peak RSS', f.peakRssMiB, 'MiB', '<= 600');
  row(label, kind, 'RSS 20 s / 60 s after the last answer', `${Math.round(f.rssAfter20sMiB)} / ${Math.round(f.rssAfter60sMiB)}`, 'MiB', '<= 400 within 60 s');
  row(label, kind, 'seconds until RSS <= 400 MiB', f.secondsToRest400 ?? 'not within 60 s', 's');
  for (const [when, m] of Object.entries(f.memory ?? {})) {
    const at = `memory breakdown (${when === 'peak' ? 'flood peak' : '60 s after the flood'})`;
    const r = m.resident;
    row(at, kind, 'resident: PGlite WebAssembly / JS heaps and other anon / malloc / files', `${r.wasm} / ${r.jsHeapsAndOther} / ${r.malloc} / ${r.files} (${m.rss})`, 'MiB');
    row(at, kind, `JS heap: main / PGlite worker / other threads (wasm committed ${m.wasmCommitted})`, `${m.jsHeap.main} / ${m.jsHeap.pglite} / ${m.jsHeap.others}`, 'MiB');
  }
  row(label, kind, 'answers by status', Object.entries(f.statuses).map(([s, n]) => `${s}: ${n}`).join(', '), 'requests');
  row(label, kind, '/healthz p99 / max (failures)', `${Math.round(f.healthzP99)} / ${Math.round(f.healthzMax)} (${f.healthzFailures})`, 'ms', 'max < 100');
  row(label, kind, 'machine load average (1 min), before / after', `${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)}`, 'runnable');
  results[`flood_${kind}`] = { ...f, loadBefore, loadAfter };
}

// Datasets (issue 23): a 100,000-row ~50 MB CSV upload, and the dataset read back page by page.
for (const kind of kinds) {
  if (only && !only.includes('datasets')) continue;
  if (kind === 'postgres' && !(await postgresAnswers())) continue;
  const rows = Math.round(100_000 * scale);
  const loadBefore = (await import('node:os')).loadavg()[0];
  // BENCH_DATASETS_IMPORT_TRACES: fewer traces for the import (a slow version's run in reasonable time).
  const importTraces = Number(process.env.BENCH_DATASETS_IMPORT_TRACES ?? Math.round(10_000 * scale));
  const d = await benchDatasets(kind, pgUrl, { rows, pageLimit: 1000, importTraces });
  const loadAfter = (await import('node:os')).loadavg()[0];
  const upload = `dataset upload: ${rows.toLocaleString('en')}-row CSV of ${d.fileMiB.toFixed(0)} MiB, one multipart request (limits raised by env)`;
  row(upload, kind, 'time to stored (201)', d.uploadSeconds, 's', '<= 10');
  row(upload, kind, 'server CPU (all threads)', d.uploadCpuSeconds, 's');
  row(upload, kind, `server peak RSS (${Math.round(d.restBeforeMiB)} MiB before)`, d.uploadPeakRssMiB, 'MiB', '<= 600');
  const read = `dataset read through GET records, ${d.pageLimit} rows a page, one client`;
  row(read, kind, 'rows/s', d.readRowsPerSecond, 'rows/s', '>= 20000');
  row(read, kind, 'wall / server CPU / server peak RSS', `${d.readSeconds.toFixed(1)} s / ${d.readCpuSeconds.toFixed(1)} s / ${Math.round(d.readPeakRssMiB)} MiB`, '');
  if (d.page) {
    const pageName = `web app: dataset page at ${rows.toLocaleString('en')} rows`;
    row(pageName, kind, 'first rows drawn, p50 of 5 loads', d.page.firstRowsMs, 'ms', '<= 1000');
    row(pageName, kind, 'scrolled to the last row: drawn', d.page.endRowsMs, 'ms');
  } else console.error('no chromium at /usr/bin/chromium: skipping the dataset page');
  const im = d.import;
  const importName = `dataset from traces: ${im.traces.toLocaleString('en')} traces matching a search (background import)`;
  row(importName, kind, 'time to completed', im.seconds, 's', '<= 20');
  row(importName, kind, 'server CPU (the concurrent ingest included) / peak RSS', `${im.cpuSeconds.toFixed(1)} s / ${Math.round(im.peakRssMiB)} MiB`, '');
  row(importName, kind, 'ingest 100-span requests before / during: p50', `${im.ingestIdle.p50.toFixed(0)} / ${im.ingestDuring.p50.toFixed(0)}`, 'ms');
  row(importName, kind, 'ingest during: p95 / max / failed of requests', `${im.ingestDuring.p95.toFixed(0)} / ${im.ingestDuring.max.toFixed(0)} ms / ${im.ingestDuring.failures} of ${im.ingestDuring.requests}`, '', 'none failed');
  row(importName, kind, 'ingest during: answers by status', Object.entries(im.ingestDuring.statuses).map(([st, n]) => `${st}: ${n}`).join(', '), '');
  row('datasets', kind, 'machine load average (1 min), before / after', `${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)}`, 'runnable');
  results[`datasets_${kind}`] = { ...d, loadBefore, loadAfter };
}

if (only?.includes('backup') || (!only && kinds.includes('pglite'))) {
  const b = await benchBackup(Number(process.env.BENCH_BACKUP_MIB ?? '1024'));
  const name = `spyglass backup, PGlite database of ${b.databaseMiB} MiB (data directory ${Math.round(b.dataDirMiB)} MiB)`;
  row(name, 'pglite', 'database built by SQL (generate_series)', b.buildSeconds, 's');
  for (const r of b.runs) {
    row(name, 'pglite', `${r.via}: command peak RSS (VmHWM)`, r.commandPeakMiB, 'MiB', '<= 600');
    if (r.serverPeakMiB !== null) row(name, 'pglite', `${r.via}: server peak RSS during the backup (VmHWM; ${Math.round(r.serverBeforeMiB!)} MiB before)`, r.serverPeakMiB, 'MiB', '<= 600');
    row(name, 'pglite', `${r.via}: wall / queries paused / file`, `${r.seconds.toFixed(1)} s / ${r.pausedMs} ms / ${Math.round(r.fileMiB)} MiB`, '');
  }
  results.backup = b;
}

let piiTable = '';
let piiTypedTable = '';
if (!only || only.includes('pii')) {
  const { before, after } = await benchPii();
  for (const v of [before, after]) {
    if (!v) continue;
    const name = `pii/pii_detection ${v.label}`;
    row(name, '-', "Presidio's recognizer vectors passed", `${v.vectors.passed}/${v.vectors.total}`, 'cases');
    row(name, '-', 'evaluations/s, 2 KB, default entities', v.speed.defaults, 'evals/s');
    row(name, '-', 'evaluations/s, 2 KB, the corpus five entities', v.speed.fiveEntities, 'evals/s');
    if (v.memory) row(name, '-', 'RSS added by importing it', v.memory.importRssMiB, 'MiB');
    if (v.memory) row(name, '-', 'RSS added once everything is loaded', v.memory.rssMiB, 'MiB');
    if (v.memory) row(name, '-', 'heap added once everything is loaded', v.memory.heapMiB, 'MiB');
  }
  piiTable = corpusTable(before, after);
  piiTypedTable = typedTable(before, after);
  results.pii = { before, after };
}

// Agent simulations reported as @langwatch/scenario reports them, and a batch's page of 500 runs.
for (const kind of kinds) {
  if (only && !only.includes('simulations')) break;
  if (kind === 'postgres' && !(await postgresAnswers())) continue;
  const server = await startBenchServer(kind, pgUrl);
  try {
    const s = await benchSimulations(server, { runs: Math.round(50 * scale), turns: 10, concurrency: 10, pageRuns: Math.round(500 * scale), reads: Number(process.env.BENCH_READS ?? '5') });
    const label = `simulations: a batch of ${s.runs} scenario runs x ${s.turns} turns posted to /api/scenario-events, ${s.concurrency} runs at once`;
    row(label, kind, "a run's last event to the run read back finished (median)", s.visibleMedianMs, 'ms', '<= 1000');
    row(label, kind, "a run's last event to the run read back finished (max)", s.visibleMaxMs, 'ms', '<= 1000');
    row(label, kind, 'runs passed', `${s.passed}/${s.runs}`, '');
    if (s.pageMs !== null) row(`simulations: a batch page of ${s.pageRuns} runs`, kind, 'in Chromium: navigation to every run drawn (median)', s.pageMs, 'ms', '<= 1000');
    else console.error('no chromium at /usr/bin/chromium: skipping the simulations batch page');
    results[`simulations_${kind}`] = s;
  } finally {
    await server.close();
  }
}

if (!only || only.includes('topics')) {
  const t = benchTopics(Math.round(100_000 * scale));
  const name = `topics: clustering ${t.n.toLocaleString()} traces' embeddings (${t.d} dimensions, ${t.subjects} hidden subjects)`;
  row(name, '-', 'time to find the topics', t.clusterMs / 1000, 's', '<= 60');
  row(name, '-', 'peak RSS of the process', t.peakRssMiB, 'MiB', '<= 600');
  row(name, '-', 'topics found', t.k, '');
  row(name, '-', 'adjusted Rand index against the hidden subjects', t.ari, '');
  row('topics: a new trace put in its topic (nearest centroid)', '-', 'per trace', t.assignUs / 1000, 'ms', '<= 5');
  results.topics = t;
}

if (!only || only.includes('evaluators')) {
  const e = await benchEvaluators(Number(process.env.BENCH_SECONDS ?? '5'));
  for (const [name, r] of [['pii/pii_detection, 2 KB text', e.pii], ['rag/context_recall, 2 KB of contexts', e.recall], ['rag/context_precision, 2 KB of contexts', e.precision]] as const) {
    row(name, '-', 'evaluations/s (one core)', r.perSecond, 'evals/s');
    row(name, '-', 'p95', r.p95, 'ms');
  }
  results.evaluators = e;
}

// Only when named: it runs four whole test files at their long sizes (about half an hour).
if (only?.includes('soak')) {
  const soak = benchSoak((await postgresAnswers()) && kinds.includes('postgres') ? pgUrl : null);
  for (const r of soak) row(`soak: ${r.file}`, kinds.join('+'), 'passed / wall time', `${r.passed ? 'passed' : 'FAILED'} in ${Math.round(r.seconds)} s`, '');
  results.soak = soak;
}

console.log(table(printed));
if (piiTable) console.log(`\npii/pii_detection on presidio-research's synthetic corpus (issue 14; held out: templates % 3 === 2)\n${piiTable}`);
if (piiTypedTable) console.log(`\npii/pii_detection on the seeded IBANs and dates, every entity enabled (bench/pii-typed-set.ts)\n${piiTypedTable}`);
const dir = path.resolve('bench/results');
fs.mkdirSync(dir, { recursive: true });
const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
fs.writeFileSync(file, JSON.stringify({ ...results, table: printed }, null, 2));
console.log(`\nwrote ${file}`);
