import fs from 'node:fs';
import { percentile } from './lib.ts';
import { otlpRequest } from './otlp-payloads.ts';
import { cpuMs, procStatus, startFreshServer } from './overload.ts';
import { DETAIL_TRACE_ID } from './traces.ts';

export interface DetailDownloadsResult {
  bytes: number;
  /** One download at a time: first body byte and last, ms. */
  alone: { ttfbP50: number; totalP50: number };
  /** `concurrent` downloads at once, every round together. */
  concurrent: number;
  rounds: number;
  ttfbP50: number;
  ttfbMax: number;
  totalP50: number;
  totalMax: number;
  /**
   * The server's RSS after the trace was ingested, its peak (VmHWM, reset then) over every
   * download, and its RSS a second after the last (PGlite's WebAssembly heap does not shrink
   * back: what one big answer grew stays); MiB.
   */
  rssBeforeMiB: number;
  peakRssMiB: number;
  rssAfterMiB: number;
  /** Server CPU time (user + system) per download, from /proc: what load barely moves. */
  cpuMsPerDownload: number;
}

/** Resets the process's peak RSS (VmHWM) to its current RSS: Linux, as root or the owner. */
function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function downloadOnce(url: string, headers: Record<string, string>): Promise<{ ttfb: number; total: number; bytes: number }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`detail answered ${res.status}`);
  const reader = res.body!.getReader();
  let ttfb = NaN;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (Number.isNaN(ttfb)) ttfb = performance.now() - t0;
    bytes += value.byteLength;
  }
  return { ttfb, total: performance.now() - t0, bytes };
}

/**
 * Downloads of a 10,000-span trace detail (9.8 MiB of JSON) from the server as users run it
 * (`bin/spyglass.mjs serve`, its own process, so its RSS is the server's alone): first five
 * one at a time, then `rounds` rounds of `concurrent` downloads at once, read at full speed.
 * Measured: time to the first body byte and to the last, the server's peak RSS over the
 * downloads (VmHWM, reset after the ingest) and its CPU time per concurrent download. `bin`: another checkout's
 * `bin/spyglass.mjs` (BENCH_DETAIL_BIN), to compare with the code before a change. `encoding`: what the
 * downloads accept (BENCH_DETAIL_ENCODING; default identity, as before answers were compressed).
 */
export async function benchDetailDownloads(
  kind: 'pglite' | 'postgres',
  postgresUrl: string,
  opts: { concurrent: number; rounds: number; bin?: string; encoding?: 'identity' | 'gzip' | 'br' },
): Promise<DetailDownloadsResult> {
  const { server, creds, dispose } = await startFreshServer(kind, postgresUrl, 'detail', opts.bin);
  try {
    const auth = { authorization: `Bearer ${creds.projectApiKey}` };
    const spans = 10_000;
    const start = Date.now() - 86_400_000;
    for (let first = 0; first < spans; first += 100) {
      const res = await fetch(`${server.baseUrl}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', ...auth },
        body: otlpRequest(0, 100, spans, start, 0xbeef, first),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
    }
    const url = `${server.baseUrl}/api/trace/${DETAIL_TRACE_ID}`;
    // fetch asks for gzip by itself: the encoding is said, so figures stay comparable (fetch decodes; `bytes` are the JSON's).
    const download = (u: string, headers: Record<string, string>) => downloadOnce(u, { ...headers, 'accept-encoding': opts.encoding ?? 'identity' });
    const pid = server.child.pid!;
    await new Promise((r) => setTimeout(r, 1_000));
    const rssBefore = procStatus(pid, 'VmRSS');
    const resettable = resetPeak(pid);
    // Sampled as well, in case the peak cannot be reset (VmHWM then holds the process's lifetime peak).
    let sampled = rssBefore;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        sampled = Math.max(sampled, procStatus(pid, 'VmRSS'));
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const alone = [];
    for (let i = 0; i < 7; i++) alone.push(await download(url, auth));
    alone.splice(0, 2); // warm-up: JIT, the database's caches
    const bytes = alone[0].bytes;
    const ttfbs: number[] = [];
    const totals: number[] = [];
    let cpu = 0;
    for (let round = 0; round < opts.rounds; round++) {
      const cpu0 = cpuMs(pid);
      const done = await Promise.all(Array.from({ length: opts.concurrent }, () => download(url, auth)));
      cpu += cpuMs(pid) - cpu0;
      for (const d of done) {
        if (d.bytes !== bytes) throw new Error(`a download had ${d.bytes} bytes, not ${bytes}`);
        ttfbs.push(d.ttfb);
        totals.push(d.total);
      }
    }
    sampling = false;
    await sampler;
    const peak = resettable ? procStatus(pid, 'VmHWM') : sampled;
    await new Promise((r) => setTimeout(r, 1_000));
    const rssAfter = procStatus(pid, 'VmRSS');
    return {
      bytes,
      alone: { ttfbP50: percentile(alone.map((d) => d.ttfb), 50), totalP50: percentile(alone.map((d) => d.total), 50) },
      concurrent: opts.concurrent,
      rounds: opts.rounds,
      ttfbP50: percentile(ttfbs, 50),
      ttfbMax: Math.max(...ttfbs),
      totalP50: percentile(totals, 50),
      totalMax: Math.max(...totals),
      rssBeforeMiB: rssBefore / 1024,
      peakRssMiB: peak / 1024,
      rssAfterMiB: rssAfter / 1024,
      cpuMsPerDownload: cpu / (opts.rounds * opts.concurrent),
    };
  } finally {
    await dispose();
  }
}
