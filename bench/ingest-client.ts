/**
 * A load-generating client in its own process (as real applications are): sends the
 * OTLP requests it is given with `concurrency` in flight and reports latencies.
 * Input on stdin: {url, token, bodies: base64[], concurrency}; output: JSON on stdout.
 */
import { pool } from './lib.ts';
import { awaitJob } from './stdin-lines.ts';

const { job: input, prepared: bodies } = await awaitJob((job: { url: string; token: string; bodies: string[]; concurrency: number }) =>
  job.bodies.map((b) => Buffer.from(b, 'base64')),
);
const latencies: number[] = [];
let failures = 0;
const t0 = performance.now();
await pool(
  bodies.map((body) => async () => {
    const s = performance.now();
    const res = await fetch(input.url, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${input.token}` }, body });
    await res.arrayBuffer();
    if (res.status !== 200) failures++;
    latencies.push(performance.now() - s);
  }),
  input.concurrency,
);
process.stdout.write(JSON.stringify({ ms: performance.now() - t0, latencies, failures }));
