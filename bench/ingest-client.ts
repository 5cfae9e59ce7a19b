/**
 * A load-generating client in its own process (as real applications are): sends the
 * OTLP requests it is given with `concurrency` in flight and reports latencies.
 * Input on stdin: {url, token, bodies: base64[], concurrency}; output: JSON on stdout.
 */
import { pool } from './lib.ts';

// Line 1: the job; then "ready" goes out, and sending starts when the line "go" comes in,
// so process start-up stays out of the measurement.
const lines: string[] = [];
let waiting: ((line: string) => void) | null = null;
let buffered = '';
process.stdin.on('data', (d) => {
  buffered += d;
  let i;
  while ((i = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, i);
    buffered = buffered.slice(i + 1);
    if (waiting) {
      const w = waiting;
      waiting = null;
      w(line);
    } else lines.push(line);
  }
});
const nextLine = () => new Promise<string>((resolve) => (lines.length ? resolve(lines.shift()!) : (waiting = resolve)));

const input = JSON.parse(await nextLine()) as { url: string; token: string; bodies: string[]; concurrency: number };
const bodies = input.bodies.map((b) => Buffer.from(b, 'base64'));
process.stdout.write('ready\n');
await nextLine();
process.stdin.pause();
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
