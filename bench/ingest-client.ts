/**
 * A load-generating client in its own process (as real applications are): sends the
 * OTLP requests it is given with `concurrency` in flight and reports latencies.
 * Input on stdin: {url, token, bodies: base64[], concurrency}; output: JSON on stdout.
 * An http(s) URL is OTLP/HTTP protobuf; `grpc://host:port` is OTLP over gRPC (one channel,
 * connected before the start, as an exporter keeps one).
 */
import * as grpc from '@grpc/grpc-js';
import { rawExportService } from '../src/modules/traces/otlp-grpc.ts';
import { pool } from './lib.ts';
import { awaitJob } from './stdin-lines.ts';

type Send = (body: Buffer) => Promise<boolean>;

const { job: input, prepared } = await awaitJob((job: { url: string; token: string; bodies: string[]; concurrency: number }) => ({
  bodies: job.bodies.map((b) => Buffer.from(b, 'base64')),
  send: job.url.startsWith('grpc://') ? grpcSender(job.url.slice('grpc://'.length), job.token) : httpSender(job.url, job.token),
}));
const { bodies, send } = prepared;
const latencies: number[] = [];
let failures = 0;
const t0 = performance.now();
await pool(
  bodies.map((body) => async () => {
    const s = performance.now();
    if (!(await send(body))) failures++;
    latencies.push(performance.now() - s);
  }),
  input.concurrency,
);
// An open gRPC channel would keep the process alive: exit once the report is written.
process.stdout.write(JSON.stringify({ ms: performance.now() - t0, latencies, failures }), () => process.exit(0));

function httpSender(url: string, token: string): Send {
  return async (body) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${token}` }, body });
    await res.arrayBuffer();
    return res.status === 200;
  };
}

function grpcSender(address: string, token: string): Send {
  const Client = grpc.makeGenericClientConstructor(rawExportService('traces'), 'TraceService');
  const client = new Client(address, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    Export(body: Buffer, metadata: grpc.Metadata, callback: (err: grpc.ServiceError | null) => void): void;
  };
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return (body) => new Promise((resolve) => client.Export(body, metadata, (err) => resolve(err === null)));
}
