import http from 'node:http';
import zlib from 'node:zlib';
import { median } from './lib.ts';
import { otlpRequest } from './otlp-payloads.ts';
import { cpuMs, startFreshServer } from './overload.ts';
import { DETAIL_TRACE_ID } from './traces.ts';

export const ENCODINGS = ['identity', 'gzip', 'br'] as const;
export type Encoding = (typeof ENCODINGS)[number];

export interface AnswerFigures {
  /** Bytes on the wire (the body as sent, headers aside). */
  bytes: number;
  /** Server CPU (user + system) per answer, median of the rounds, ms. */
  cpuMs: number;
  /** Wall time per answer on loopback, median of the rounds, ms. */
  wallMs: number;
  /** Time to the first body byte, median of every answer, ms: a streamed answer starts before it is read whole. */
  firstByteMs: number;
  /** What the content-encoding header said. */
  encoding: string;
}

export interface CompressionResult {
  answers: Record<string, Record<Encoding, AnswerFigures>>;
  /** The same identity bytes compressed in this process at each level: why the server's levels. */
  levels: { answer: string; encoding: string; level: number; bytes: number; cpuMs: number }[];
}

interface Answer {
  bytes: Buffer;
  encoding: string;
  firstByteMs: number;
}

function get(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      let firstByteMs = NaN;
      res.on('data', (c: Buffer) => {
        if (chunks.length === 0) firstByteMs = performance.now() - t0;
        chunks.push(c);
      });
      res.on('end', () =>
        res.statusCode === 200
          ? resolve({ bytes: Buffer.concat(chunks), encoding: String(res.headers['content-encoding'] ?? 'identity'), firstByteMs })
          : reject(new Error(`${url} answered ${res.statusCode}`)),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Bytes on the wire and server CPU per answer, without and with compression, for the
 * answers the web app asks for most: the outline of a 10,000-span trace (streamed from a
 * cursor) and a search page of 100 traces (built whole). The server runs as users run it
 * (`bin/spyglass.mjs serve`, its own process; `bin`: another checkout's, to compare with
 * the code before the change); requests go one at a time, the encodings interleaved in
 * each round (identity, gzip, br, identity, ...), and the median round counts.
 */
export async function benchCompression(kind: 'pglite' | 'postgres', postgresUrl: string, opts: { rounds: number; bin?: string }): Promise<CompressionResult> {
  const { server, creds, dispose } = await startFreshServer(kind, postgresUrl, 'compression', opts.bin);
  try {
    const auth = { authorization: `Bearer ${creds.projectApiKey}` };
    const ingest = async (body: Buffer) => {
      const res = await fetch(`${server.baseUrl}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', ...auth }, body });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
    };
    const start = Date.now() - 86_400_000;
    // The 10,000-span trace of the detail bench, and 2,000 traces of 5 spans to search.
    for (let first = 0; first < 10_000; first += 100) await ingest(otlpRequest(0, 100, 10_000, start, 0xbeef, first));
    for (let i = 0; i < 100; i++) await ingest(otlpRequest(i * 20, 100, 5, start, 0xcafe));

    const answers = {
      'trace outline, 10,000 spans (streamed)': { method: 'GET', url: `${server.baseUrl}/api/trace/${DETAIL_TRACE_ID}/outline`, body: undefined, perRound: 3 },
      'search page, 100 traces': { method: 'POST', url: `${server.baseUrl}/api/trace/search`, body: JSON.stringify({ pageSize: 100 }), perRound: 20 },
    };
    const pid = server.child.pid!;
    const result: CompressionResult = { answers: {}, levels: [] };
    for (const [label, a] of Object.entries(answers)) {
      const samples = Object.fromEntries(ENCODINGS.map((e) => [e, { cpu: [] as number[], wall: [] as number[], firstByte: [] as number[], bytes: 0, encoding: '' }]));
      const headers = (e: Encoding) => ({ ...auth, ...(e === 'identity' ? {} : { 'accept-encoding': e }) });
      // Warm-up: JIT, the database's caches, zlib's first contexts.
      for (const e of ENCODINGS) await get(a.url, a.method, headers(e), a.body);
      let identityBody: Buffer = Buffer.alloc(0);
      for (let round = 0; round < opts.rounds; round++) {
        for (const e of ENCODINGS) {
          const cpu0 = cpuMs(pid);
          const t0 = performance.now();
          let last: Answer | null = null;
          // /proc counts CPU in 10 ms ticks: several answers per sample.
          for (let i = 0; i < a.perRound; i++) {
            last = await get(a.url, a.method, headers(e), a.body);
            samples[e].firstByte.push(last.firstByteMs);
          }
          if (!last) throw new Error('no answer');
          samples[e].wall.push((performance.now() - t0) / a.perRound);
          samples[e].cpu.push((cpuMs(pid) - cpu0) / a.perRound);
          samples[e].bytes = last.bytes.length;
          samples[e].encoding = last.encoding;
          if (e === 'identity') identityBody = last.bytes;
        }
      }
      result.answers[label] = Object.fromEntries(
        ENCODINGS.map((e) => [e, { bytes: samples[e].bytes, cpuMs: median(samples[e].cpu), wallMs: median(samples[e].wall), firstByteMs: median(samples[e].firstByte), encoding: samples[e].encoding }]),
      ) as Record<Encoding, AnswerFigures>;
      result.levels.push(...levelSweep(label, identityBody));
    }
    return result;
  } finally {
    await dispose();
  }
}

/** CPU of this process to compress `body` once at each level (median of 5). */
function levelSweep(answer: string, body: Buffer): CompressionResult['levels'] {
  const out: CompressionResult['levels'] = [];
  const time = (f: () => Buffer) => {
    const cpu: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 5; i++) {
      const c0 = process.cpuUsage();
      bytes = f().length;
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
    return { bytes, cpuMs: median(cpu) };
  };
  for (const level of [1, 3, 4, 6]) out.push({ answer, encoding: 'gzip', level, ...time(() => zlib.gzipSync(body, { level })) });
  for (const level of [1, 3, 4, 5]) {
    const params = { [zlib.constants.BROTLI_PARAM_QUALITY]: level, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length };
    out.push({ answer, encoding: 'br', level, ...time(() => zlib.brotliCompressSync(body, { params })) });
  }
  return out;
}
