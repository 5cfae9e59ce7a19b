import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { admin, percentile } from './lib.ts';
import { ExportTraceServiceRequestType } from '../src/modules/traces/ingest/otlp-schema.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '..', 'bin', 'spyglass.mjs');
const MEMORY_PROBE = path.join(here, 'memory-probe.cjs');

/** KiB from /proc/<pid>/status (VmRSS now, VmHWM the peak). */
export function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`));
  return m ? Number(m[1]) : NaN;
}

async function timedGet(url: string, timeoutMs: number): Promise<{ ms: number; status: number }> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return { ms: performance.now() - t0, status: res.status };
  } catch {
    return { ms: timeoutMs, status: 0 };
  }
}

export interface Server {
  child: ChildProcess;
  baseUrl: string;
  /** ms from spawn to /healthz 200, and to /readyz 200. */
  healthyMs: number;
  readyMs: number;
  /** CPU seconds the server process used to get there (user + system), from /proc: less noisy than wall time on a shared machine. */
  startCpuMs: number;
  stop(): Promise<void>;
}

/** The highest RSS of a process, read every `intervalMs` until `stop()`, and when it was seen. */
export function sampleRssPeak(pid: number, intervalMs: number) {
  const peak = { peakKiB: procStatus(pid, 'VmRSS'), peakAt: Date.now() };
  let running = true;
  const loop = (async () => {
    while (running) {
      const kiB = procStatus(pid, 'VmRSS');
      if (kiB > peak.peakKiB) [peak.peakKiB, peak.peakAt] = [kiB, Date.now()];
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    get peakKiB() {
      return peak.peakKiB;
    },
    get peakAt() {
      return peak.peakAt;
    },
    stop: () => {
      running = false;
      return loop;
    },
  };
}

export function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 100 Hz
}

export async function startServer(env: Record<string, string>, bin = BIN): Promise<Server> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const baseUrl = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  // BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof": where the server's CPU goes
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, bin, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      SPYGLASS_OTLP_GRPC_PORT: 'off',
      LOG_LEVEL: 'warn',
      // bin/spyglass.mjs: the bundle or the TypeScript sources (A/B of the start in one sitting)
      ...(process.env.SPYGLASS_RUN_FROM ? { SPYGLASS_RUN_FROM: process.env.SPYGLASS_RUN_FROM } : {}),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let healthyMs = NaN;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const h = await timedGet(`${baseUrl}/healthz`, 1000);
    if (h.status === 200) {
      if (Number.isNaN(healthyMs)) healthyMs = performance.now() - t0;
      const r = await timedGet(`${baseUrl}/readyz`, 1000);
      if (r.status === 200) break;
    }
    if (performance.now() - t0 > 120_000) throw new Error('server did not start in 120 s');
    await new Promise((r) => setTimeout(r, 10));
  }
  const readyMs = performance.now() - t0;
  const startCpuMs = cpuMs(child.pid!);
  return {
    child,
    baseUrl,
    healthyMs,
    readyMs,
    startCpuMs,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function startClient(job: Record<string, unknown>) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'overload-client.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on('data', (d) => {
    out += d;
    if (out.startsWith('ready\n')) onReady();
  });
  const done = new Promise<ClientReport>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.slice('ready\n'.length))) : reject(new Error(`client exited ${code}`))));
  });
  child.stdin.write(JSON.stringify(job) + '\n');
  return { ready, done, go: () => child.stdin.end('go\n') };
}

interface ClientReport {
  admittedSpans: number;
  accepted: number;
  shed503: number;
  shed429: number;
  errors: number;
  latencies: number[];
  retryAfter: number[];
}

const SEARCHES = [{}, { query: 'refund policy' }, { query: 'order 4242' }, { filters: { user_id: 'user-42' } }, { sortBy: 'metrics.total_cost', sortDirection: 'desc' }];

export interface OverloadResult {
  firstStart: { healthyMs: number; readyMs: number; cpuMs: number };
  restart: { healthyMs: number; readyMs: number; cpuMs: number };
  restMiB: { afterFirstStart: number; afterRestart: number };
  /** BENCH_MEMORY_BREAKDOWN=1: where the memory is, 5 s after each start and at the overload's peak (none with seconds = 0). */
  memory?: { afterFirstStart: MemoryBreakdown; afterRestart: MemoryBreakdown; peak?: MemoryBreakdown };
  /** null when run with seconds = 0 (start and rest only). */
  overload: {
    seconds: number;
    inFlight: number;
    healthzP99: number;
    healthzMax: number;
    healthzCount: number;
    readyzP99: number;
    searchP50: number;
    searchP95: number;
    searches: number;
    detailP95: number;
    spansPerSecond: number;
    acceptedRequests: number;
    shed503: number;
    shed429: number;
    errors: number;
    ingestP50: number;
    peakRssMiB: number;
    restAfterMiB: number;
  } | null;
}

/**
 * The server as a user runs it (`bin/spyglass.mjs serve`, its own process): first start on
 * an empty data directory or database, RSS at rest, restart, then the overload run:
 * `clients` exporter processes keep `inFlight` requests of 1,000 spans in flight for
 * `seconds`, honouring Retry-After, while /healthz, /readyz, searches and a trace detail
 * are timed and the server's RSS sampled. `seconds` 0: the start and rest figures only.
 */
export async function benchOverload(kind: 'pglite' | 'postgres', postgresUrl: string, opts: { seconds: number; inFlight: number; clients: number }): Promise<OverloadResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-overload-'));
  let dropDb: (() => Promise<void>) | null = null;
  const env: Record<string, string> = { SPYGLASS_DATA_DIR: dataDir };
  const probeDir = process.env.BENCH_MEMORY_BREAKDOWN === '1' ? fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-memory-')) : null;
  if (probeDir) Object.assign(env, { NODE_OPTIONS: `--require ${MEMORY_PROBE}`, SPYGLASS_MEMORY_PROBE_DIR: probeDir });
  if (kind === 'postgres') {
    const name = `spyglass_overload_${randomBytes(4).toString('hex')}`;
    await admin(postgresUrl, `CREATE DATABASE ${name}`);
    const u = new URL(postgresUrl);
    u.pathname = `/${name}`;
    env.DATABASE_URL = u.toString();
    dropDb = () => admin(postgresUrl, `DROP DATABASE IF EXISTS ${name}`);
  }
  const rest = () => new Promise((r) => setTimeout(r, 5_000));
  // BENCH_OVERLOAD_BIN: another checkout's bin/spyglass.mjs (its bundle), to compare two versions in one sitting.
  const bin = process.env.BENCH_OVERLOAD_BIN;
  try {
    let server = await startServer(env, bin);
    const firstStart = { healthyMs: server.healthyMs, readyMs: server.readyMs, cpuMs: server.startCpuMs };
    await rest();
    const afterFirstStart = procStatus(server.child.pid!, 'VmRSS') / 1024;
    const firstPid = server.child.pid!;
    const firstRestAt = Date.now();
    await server.stop();
    server = await startServer(env, bin);
    const restart = { healthyMs: server.healthyMs, readyMs: server.readyMs, cpuMs: server.startCpuMs };
    await rest();
    const afterRestart = procStatus(server.child.pid!, 'VmRSS') / 1024;
    const restAt = Date.now();
    if (opts.seconds <= 0) {
      await server.stop();
      const memory = probeDir ? { afterFirstStart: memoryAt(probeDir, firstPid, firstRestAt), afterRestart: memoryAt(probeDir, server.child.pid!, restAt) } : undefined;
      return { firstStart, restart, restMiB: { afterFirstStart, afterRestart }, memory, overload: null };
    }
    const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8')) as { projectApiKey: string };
    const auth = { authorization: `Bearer ${creds.projectApiKey}` };

    const perClient = Math.ceil(opts.inFlight / opts.clients);
    const clients = Array.from({ length: opts.clients }, (_, c) =>
      startClient({ url: `${server.baseUrl}/v1/traces`, token: creds.projectApiKey, concurrency: perClient, seconds: opts.seconds, bodies: 60, firstTrace: c * 1_000_000, salt: 0x0ad }),
    );
    await Promise.all(clients.map((c) => c.ready));
    const pid = server.child.pid!;
    const rss = sampleRssPeak(pid, 100);
    let running = true;
    const healthz: number[] = [];
    const readyz: number[] = [];
    const probes = (async () => {
      while (running) {
        healthz.push((await timedGet(`${server.baseUrl}/healthz`, 5000)).ms);
        readyz.push((await timedGet(`${server.baseUrl}/readyz`, 5000)).ms);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const searches: number[] = [];
    const details: number[] = [];
    const reads = (async () => {
      await new Promise((r) => setTimeout(r, 2000)); // let the queue fill first
      for (let i = 0; running; i++) {
        const t0 = performance.now();
        try {
          const res = await fetch(`${server.baseUrl}/api/trace/search`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...auth },
            body: JSON.stringify(SEARCHES[i % SEARCHES.length]),
            signal: AbortSignal.timeout(30_000),
          });
          const body = (await res.json()) as { traces?: { trace_id: string }[] };
          searches.push(performance.now() - t0);
          const id = body.traces?.[0]?.trace_id;
          if (id && i % 5 === 0) {
            const d0 = performance.now();
            await fetch(`${server.baseUrl}/api/trace/${id}`, { headers: auth, signal: AbortSignal.timeout(30_000) }).then((r) => r.arrayBuffer());
            details.push(performance.now() - d0);
          }
        } catch {
          searches.push(30_000);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const t0 = performance.now();
    clients.forEach((c) => c.go());
    const reports = await Promise.all(clients.map((c) => c.done));
    const seconds = (performance.now() - t0) / 1000;
    running = false;
    await Promise.all([rss.stop(), probes, reads]);
    const sum = (f: (r: ClientReport) => number) => reports.reduce((n, r) => n + f(r), 0);
    await new Promise((r) => setTimeout(r, 5_000));
    const restAfterMiB = procStatus(pid, 'VmRSS') / 1024;
    await server.stop();
    return {
      firstStart,
      restart,
      restMiB: { afterFirstStart, afterRestart },
      memory: probeDir
        ? { afterFirstStart: memoryAt(probeDir, firstPid, firstRestAt), afterRestart: memoryAt(probeDir, pid, restAt), peak: memoryAt(probeDir, pid, rss.peakAt) }
        : undefined,
      overload: {
        seconds,
        inFlight: perClient * opts.clients,
        healthzP99: percentile(healthz, 99),
        healthzMax: Math.max(...healthz),
        healthzCount: healthz.length,
        readyzP99: percentile(readyz, 99),
        searchP50: percentile(searches, 50),
        searchP95: percentile(searches, 95),
        searches: searches.length,
        detailP95: percentile(details, 95),
        spansPerSecond: sum((r) => r.admittedSpans) / seconds,
        acceptedRequests: sum((r) => r.accepted),
        shed503: sum((r) => r.shed503),
        shed429: sum((r) => r.shed429),
        errors: sum((r) => r.errors),
        ingestP50: percentile(reports.flatMap((r) => r.latencies), 50),
        peakRssMiB: rss.peakKiB / 1024,
        restAfterMiB,
      },
    };
  } finally {
    await dropDb?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (probeDir) fs.rmSync(probeDir, { recursive: true, force: true });
  }
}

/** MiB. `resident` adds up to the RSS (bench/memory-probe.cjs says how it is told apart). */
export interface MemoryBreakdown {
  rss: number;
  resident: { wasm: number; jsHeapsAndOther: number; malloc: number; files: number };
  /** V8 heap size (committed) of each thread; `others`: threads other than the main one and PGlite's (tsx's loader). */
  jsHeap: { main: number; pglite: number; others: number };
  /** PGlite's WebAssembly memory as committed (its resident part is resident.wasm). */
  wasmCommitted: number;
}

/** The memory probe's samples of process `pid` nearest to time `t`, one per thread. */
function memoryAt(probeDir: string, pid: number, t: number): MemoryBreakdown {
  type Sample = { t: number; heapTotal: number; wasm: number; rss?: number; resident?: MemoryBreakdown['resident'] };
  const threads = fs
    .readdirSync(probeDir)
    .filter((f) => f.startsWith(`${pid}-`))
    .map((f) => {
      const samples = fs.readFileSync(path.join(probeDir, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Sample);
      return { main: f === `${pid}-main.jsonl`, s: samples.reduce((a, b) => (Math.abs(b.t - t) < Math.abs(a.t - t) ? b : a)) };
    });
  const main = threads.find((th) => th.main)!.s;
  const pglite = threads.find((th) => !th.main && th.s.wasm > 64)?.s;
  const others = threads.filter((th) => !th.main && th.s !== pglite).reduce((n, th) => n + th.s.heapTotal, 0);
  return {
    rss: main.rss!,
    resident: main.resident!,
    jsHeap: { main: main.heapTotal, pglite: pglite?.heapTotal ?? 0, others: Math.round(others * 10) / 10 },
    wasmCommitted: pglite?.wasm ?? 0,
  };
}

/**
 * A server as users run it on an empty database of its own: a new PGlite data directory, and
 * on PostgreSQL a new database too; `dispose` stops the server and removes both. A random port
 * may be taken (other servers on the machine): another one, twice at most.
 */
export async function startFreshServer(kind: 'pglite' | 'postgres', postgresUrl: string, label: string, bin?: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `spyglass-${label}-`));
  let dropDb: (() => Promise<void>) | null = null;
  const env: Record<string, string> = { SPYGLASS_DATA_DIR: dataDir };
  if (kind === 'postgres') {
    const name = `spyglass_${label}_${randomBytes(4).toString('hex')}`;
    await admin(postgresUrl, `CREATE DATABASE ${name}`);
    const u = new URL(postgresUrl);
    u.pathname = `/${name}`;
    env.DATABASE_URL = u.toString();
    dropDb = () => admin(postgresUrl, `DROP DATABASE IF EXISTS ${name}`);
  }
  const server = await startServer(env, bin).catch(() => startServer(env, bin)).catch(() => startServer(env, bin));
  const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8')) as { projectApiKey: string };
  return {
    server,
    creds,
    dispose: async () => {
      await server.stop();
      await dropDb?.();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}


export interface FloodResult {
  requests: number;
  /** Each request on the wire (gzip) and what it inflates to, bytes. */
  wireBytes: number;
  inflatedBytes: number;
  restBeforeMiB: number;
  peakRssMiB: number;
  /** RSS 20 s and 60 s after the last answer, and the first second it was at most 400 MiB (null: not within 60 s). */
  rssAfter20sMiB: number;
  rssAfter60sMiB: number;
  secondsToRest400: number | null;
  /** BENCH_MEMORY_BREAKDOWN=1: where the memory is at the peak and 60 s after the last answer. */
  memory?: { peak: MemoryBreakdown; after60s: MemoryBreakdown };
  statuses: Record<string, number>;
  healthzP99: number;
  healthzMax: number;
  healthzFailures: number;
}

/**
 * The compressed flood (issue 15, item 3): `requests` OTLP/HTTP protobuf bodies sent at once,
 * each a gzip of about 58 KB that inflates to one span carrying a single 60 MB attribute,
 * against a fresh server in its own process; its RSS sampled every 50 ms and /healthz timed
 * every 100 ms, through the burst and for 60 s after its last answer.
 */
export async function benchFlood(kind: 'pglite' | 'postgres', postgresUrl: string, opts: { requests: number; attributeBytes: number }): Promise<FloodResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-flood-'));
  const env: Record<string, string> = { SPYGLASS_DATA_DIR: dataDir };
  const probeDir = process.env.BENCH_MEMORY_BREAKDOWN === '1' ? fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-memory-')) : null;
  if (probeDir) Object.assign(env, { NODE_OPTIONS: `--require ${MEMORY_PROBE}`, SPYGLASS_MEMORY_PROBE_DIR: probeDir });
  let dropDb: (() => Promise<void>) | null = null;
  if (kind === 'postgres') {
    const name = `spyglass_flood_${randomBytes(4).toString('hex')}`;
    await admin(postgresUrl, `CREATE DATABASE ${name}`);
    const u = new URL(postgresUrl);
    u.pathname = `/${name}`;
    env.DATABASE_URL = u.toString();
    dropDb = () => admin(postgresUrl, `DROP DATABASE IF EXISTS ${name}`);
  }
  try {
    const server = await startServer(env);
    await new Promise((r) => setTimeout(r, 5_000));
    const pid = server.child.pid!;
    const restBeforeMiB = procStatus(pid, 'VmRSS') / 1024;
    const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8')) as { projectApiKey: string };
    const bodies = Array.from({ length: opts.requests }, (_, i) => gzipSync(floodRequest(i, opts.attributeBytes), { level: 9 }));
    const rss = sampleRssPeak(pid, 50);
    let running = true;
    const healthz: number[] = [];
    let healthzFailures = 0;
    const probes = (async () => {
      while (running) {
        const h = await timedGet(`${server.baseUrl}/healthz`, 5000);
        healthz.push(h.ms);
        if (h.status !== 200) healthzFailures++;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const statuses: Record<string, number> = {};
    await Promise.all(
      bodies.map(async (body) => {
        try {
          const res = await fetch(`${server.baseUrl}/v1/traces`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip', authorization: `Bearer ${creds.projectApiKey}` },
            body,
            signal: AbortSignal.timeout(120_000),
          });
          await res.arrayBuffer();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        } catch {
          statuses.error = (statuses.error ?? 0) + 1;
        }
      }),
    );
    const answeredAt = performance.now();
    let secondsToRest400: number | null = null;
    let rssAfter20sMiB = NaN;
    for (let s = 1; s <= 60; s++) {
      await new Promise((r) => setTimeout(r, answeredAt + s * 1000 - performance.now()));
      const mib = procStatus(pid, 'VmRSS') / 1024;
      if (secondsToRest400 === null && mib <= 400) secondsToRest400 = s;
      if (s === 20) rssAfter20sMiB = mib;
    }
    const rssAfter60sMiB = procStatus(pid, 'VmRSS') / 1024;
    const after60sAt = Date.now();
    running = false;
    await Promise.all([rss.stop(), probes]);
    await server.stop();
    return {
      memory: probeDir ? { peak: memoryAt(probeDir, pid, rss.peakAt), after60s: memoryAt(probeDir, pid, after60sAt) } : undefined,
      requests: opts.requests,
      wireBytes: bodies[0].length,
      inflatedBytes: floodRequest(0, opts.attributeBytes).length,
      restBeforeMiB,
      peakRssMiB: rss.peakKiB / 1024,
      rssAfter20sMiB,
      rssAfter60sMiB,
      secondsToRest400,
      statuses,
      healthzP99: percentile(healthz, 99),
      healthzMax: Math.max(...healthz),
      healthzFailures,
    };
  } finally {
    await dropDb?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (probeDir) fs.rmSync(probeDir, { recursive: true, force: true });
  }
}

/** One span whose one attribute is `attributeBytes` of text: what a gzip flood inflates to. */
function floodRequest(n: number, attributeBytes: number): Buffer {
  const hex = (v: number, len: number) => v.toString(16).padStart(len, '0');
  const t = BigInt(Date.now() - 60_000) * 1_000_000n;
  const message = ExportTraceServiceRequestType.fromObject({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'flood' } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId: Buffer.from(`f100d000${hex(n + 1, 24)}`, 'hex'),
                spanId: Buffer.from(hex(n + 1, 16), 'hex'),
                name: 'flood',
                kind: 1,
                startTimeUnixNano: t.toString(),
                endTimeUnixNano: (t + 1_000_000n).toString(),
                attributes: [{ key: 'flood.payload', value: { stringValue: 'x'.repeat(attributeBytes) } }],
              },
            ],
          },
        ],
      },
    ],
  });
  return Buffer.from(ExportTraceServiceRequestType.encode(message).finish());
}
