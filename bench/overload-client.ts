/**
 * A load-generating OTLP exporter in its own process, for the overload run: keeps
 * `concurrency` requests of 1,000 spans in flight for `seconds`, and on 503 or 429 waits
 * Retry-After and sends the same request again, as OTLP exporters do.
 * Input on stdin: one JSON line; "ready" goes out; sending starts on the line "go".
 */
import { otlpRequest } from './otlp-payloads.ts';
import { awaitJob } from './stdin-lines.ts';

interface Job {
  url: string;
  token: string;
  concurrency: number;
  seconds: number;
  bodies: number;
  firstTrace: number;
  salt: number;
}

const SPANS = 1000;
const { job, prepared: bodies } = await awaitJob((job: Job) => {
  const start = Date.now() - 20 * 86_400_000;
  return Array.from({ length: job.bodies }, (_, i) => otlpRequest(job.firstTrace + i * (SPANS / 5), SPANS, 5, start, job.salt));
});

const report = { admittedSpans: 0, accepted: 0, shed503: 0, shed429: 0, errors: 0, latencies: [] as number[], retryAfter: [] as number[] };
const deadline = performance.now() + job.seconds * 1000;
let next = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
await Promise.all(
  Array.from({ length: job.concurrency }, async () => {
    let body = bodies[next++ % bodies.length];
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const res = await fetch(job.url, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${job.token}` }, body, signal: AbortSignal.timeout(30_000) });
        await res.arrayBuffer();
        if (res.status === 200) {
          report.accepted++;
          report.admittedSpans += SPANS;
          report.latencies.push(performance.now() - t0);
          body = bodies[next++ % bodies.length];
        } else if (res.status === 503 || res.status === 429) {
          if (res.status === 503) report.shed503++;
          else report.shed429++;
          const after = Number(res.headers.get('retry-after') ?? '1');
          report.retryAfter.push(after);
          await sleep(Math.min(Math.max(after, 0.1), 30) * 1000 * (0.8 + Math.random() * 0.4));
        } else {
          report.errors++;
          await sleep(1000);
        }
      } catch {
        report.errors++;
        await sleep(1000);
      }
    }
  }),
);
process.stdout.write(JSON.stringify(report));
