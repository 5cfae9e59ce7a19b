import { spawn } from 'node:child_process';
import { otlpRequest } from './otlp-payloads.ts';
import { median, percentile, pool, startBenchServer } from './lib.ts';

/**
 * Webhook delivery, end to end through the API on a real server (loopback receiver answering
 * 204 at once, the dispatcher's defaults: max_batch_size 50, max_batch_delay_ms 0, poll 1 s):
 * - latency: events written one at a time on an otherwise idle server (an annotation every
 *   50 ms); event to delivery = arrival at the receiver minus the event's timestamp (taken
 *   before the writing transaction commits, so the figure includes that commit), and minus
 *   the time the writing request was answered (after its commit);
 * - throughput: a backlog of `events` trace.created events (ingested while the dispatcher is
 *   stopped), drained to the receiver: events/s = events / (dispatcher started .. last event
 *   received), in batches of 50.
 */
export async function benchWebhooks(kind: 'pglite' | 'postgres', pgUrl: string, opts: { latencyEvents: number; events: number }) {
  const receiver = await startReceiver();
  const server = await startBenchServer(kind, pgUrl, { env: { SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1' } });
  try {
    const key = server.creds.projectApiKey;
    const post = async (path: string, body: unknown) => {
      const res = await fetch(server.baseUrl + path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    };
    await post('/api/webhooks/v1/endpoints', { url: `${receiver.url}/annotations`, enabled_events: ['annotation.created'] });
    // Warm-up (JIT, connections) outside the measurement.
    for (let i = 0; i < 20; i++) await post(`/api/annotations/trace/warm-${i}`, { comment: 'warm', isThumbsUp: true });
    await receiver.until((r) => r.arrivals.length >= 20, 30_000);
    receiver.arrivals.length = 0;
    const answeredAt = new Map<string, number>();
    for (let i = 0; i < opts.latencyEvents; i++) {
      await post(`/api/annotations/trace/lat-${i}`, { comment: `c${i}`, isThumbsUp: true });
      answeredAt.set(`lat-${i}`, Date.now());
      await new Promise((r) => setTimeout(r, 50));
    }
    await receiver.until((r) => r.arrivals.length >= opts.latencyEvents, 60_000);
    const latencies = receiver.arrivals.map((a) => a.at - Date.parse(a.event.timestamp));
    // From the writer's answer (the commit is before it): 0 when the event arrived first.
    const afterAnswer = receiver.arrivals.map((a) => Math.max(0, a.at - answeredAt.get(a.event.data.annotation.traceId)!));

    // Throughput: a backlog of trace.created events, ingested while the dispatcher is stopped, then drained.
    await post('/api/webhooks/v1/endpoints', { url: `${receiver.url}/traces`, enabled_events: ['trace.created'] });
    const dispatcher = server.app.services.webhooks.dispatcher;
    await dispatcher.stop();
    const tracesPerRequest = 20;
    const requests = Math.ceil(opts.events / tracesPerRequest);
    const start = Date.now() - 86_400_000;
    await pool(
      Array.from({ length: requests }, (_, i) => async () => {
        const body = otlpRequest(i * tracesPerRequest, tracesPerRequest * 5, 5, start, 0xb00c);
        const res = await fetch(`${server.baseUrl}/api/otel/v1/traces`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-protobuf' }, body });
        if (res.status !== 200) throw new Error(`ingest: ${res.status}`);
        await res.arrayBuffer();
      }),
      2,
    );
    const total = requests * tracesPerRequest;
    receiver.arrivals.length = 0;
    const t0 = Date.now();
    dispatcher.start();
    await receiver.until((r) => r.arrivals.length >= total, 600_000);
    const seconds = (Math.max(...receiver.arrivals.map((a) => a.at)) - t0) / 1000;
    return {
      p50: median(latencies),
      p99: percentile(latencies, 99),
      afterAnswerP50: median(afterAnswer),
      afterAnswerP99: percentile(afterAnswer, 99),
      max: Math.max(...latencies),
      events: total,
      eventsPerSecond: total / seconds,
      batches: receiver.requests,
    };
  } finally {
    await server.close();
    await receiver.close();
  }
}

interface Arrival {
  at: number;
  event: { id: string; timestamp: string; data: { annotation: { traceId: string } } };
}

/**
 * The receiver runs in a process of its own, as a real one would: in the server's process it
 * would wait for the event loop whenever PGlite (synchronous WebAssembly) runs a statement.
 * It reports each event's arrival time on stdout.
 */
const RECEIVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    res.writeHead(204).end();
    const events = JSON.parse(Buffer.concat(chunks).toString('utf8')).batch.map((e) => ({ id: e.id, timestamp: e.timestamp, data: e.type === 'annotation.created' ? { annotation: { traceId: e.data.annotation.traceId } } : {} }));
    process.stdout.write(JSON.stringify({ at, events }) + '\\n');
  });
});
server.keepAliveTimeout = 60000;
// The bench's end (or death) closes stdin: the receiver goes with it.
process.stdin.on('end', () => process.exit(0)).resume();
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\\n'));
`;

async function startReceiver() {
  const state = { arrivals: [] as Arrival[], requests: 0 };
  const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffered = '';
  const port = await new Promise<number>((resolve) => {
    child.stdout.on('data', (d) => {
      buffered += d;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        if (line.port) resolve(line.port);
        else {
          state.requests++;
          for (const event of line.events) state.arrivals.push({ at: line.at, event });
        }
      }
    });
  });
  return {
    get arrivals() {
      return state.arrivals;
    },
    get requests() {
      return state.requests;
    },
    url: `http://127.0.0.1:${port}`,
    async until(check: (s: typeof state) => boolean, timeoutMs: number) {
      const deadline = Date.now() + timeoutMs;
      while (!check(state)) {
        if (Date.now() > deadline) throw new Error(`webhook bench: ${state.arrivals.length} events arrived before the deadline`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    close: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
