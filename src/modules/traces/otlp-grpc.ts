import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.ts';
import { authenticateProjectKey, type CredentialStore } from '../../platform/auth/index.ts';
import { AppError } from '../../platform/errors.ts';
import { OTLP_DECOMPRESSED_LIMIT } from './ingest/index.ts';
import { exportOtlp, OTLP_BODY_LIMIT, type OtlpSignal } from './otlp-export.ts';
import type { TraceIngest } from './ingest.ts';

/**
 * OTLP over gRPC: the collector's TraceService and LogsService `Export`, on their own port
 * (4317, as collectors listen). A message is handed on as the bytes it came as, so it takes
 * the one OTLP path (exportOtlp: admission, the decode worker, ingest) with the protobuf
 * decoder of OTLP/HTTP; only the transport differs. Credentials come from the metadata,
 * the same headers as over HTTP.
 */
export interface OtlpGrpcDeps {
  /** The traces module's ingest: the one OTLP path. */
  ingest: TraceIngest;
  credentials: CredentialStore;
  clock: Clock;
  logger: Logger;
}

const SERVICES: Record<OtlpSignal, string> = {
  traces: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
  logs: '/opentelemetry.proto.collector.logs.v1.LogsService/Export',
};

const bytes = (value: Buffer) => value;

/**
 * A signal's Export method with the messages left as bytes: the server hands them to the same
 * decoder as OTLP/HTTP, and a client (the bench's) sends requests it encoded itself.
 */
export function rawExportService(signal: OtlpSignal): grpc.ServiceDefinition {
  return {
    Export: {
      path: SERVICES[signal],
      requestStream: false,
      responseStream: false,
      requestSerialize: bytes,
      requestDeserialize: bytes,
      responseSerialize: bytes,
      responseDeserialize: bytes,
    },
  };
}

/** The error statuses of the HTTP routes, as the OTLP spec maps them to gRPC: its exporters retry UNAVAILABLE. */
const GRPC_STATUS: Record<number, grpc.status> = {
  400: grpc.status.INVALID_ARGUMENT,
  401: grpc.status.UNAUTHENTICATED,
  403: grpc.status.PERMISSION_DENIED,
  404: grpc.status.NOT_FOUND,
  413: grpc.status.RESOURCE_EXHAUSTED,
  415: grpc.status.INVALID_ARGUMENT,
  429: grpc.status.UNAVAILABLE,
  503: grpc.status.UNAVAILABLE,
};

export class OtlpGrpcServer {
  private server: grpc.Server | null = null;

  constructor(private readonly deps: OtlpGrpcDeps) {}

  /** Starts listening; resolves with the port bound (0 asks for any free port). */
  async listen(port: number, host: string): Promise<number> {
    // gRPC checks a message against this both as it arrives and as it decompresses (gzip,
    // deflate): 64 MiB, what an OTLP/HTTP body may inflate to; the handler holds an
    // uncompressed message to OTLP/HTTP's 16 MiB.
    const server = new grpc.Server({ 'grpc.max_receive_message_length': OTLP_DECOMPRESSED_LIMIT });
    for (const signal of ['traces', 'logs'] as const) {
      const definition = rawExportService(signal);
      server.addService(definition, { Export: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => this.export(signal, call, callback) });
    }
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    const bound = await new Promise<number>((resolve, reject) =>
      server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, actual) => (err ? reject(err) : resolve(actual))),
    );
    this.server = server;
    return bound;
  }

  /** Stops taking calls and waits for those in progress. */
  close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => server.tryShutdown(() => resolve()));
  }

  private export(signal: OtlpSignal, call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) {
    this.answer(signal, call).then(
      (response) => callback(null, response),
      (err: unknown) => callback(this.toStatus(err)),
    );
  }

  private async answer(signal: OtlpSignal, call: grpc.ServerUnaryCall<Buffer, Buffer>): Promise<Buffer> {
    const metadata = (key: string) => {
      const value = call.metadata.get(key)[0];
      return typeof value === 'string' ? value : null;
    };
    const { principal, projectId } = await authenticateProjectKey(
      this.deps.credentials,
      this.deps.clock,
      { authorization: metadata('authorization'), 'x-auth-token': metadata('x-auth-token'), 'x-project-id': metadata('x-project-id') },
      'traces:create',
    );
    const body = call.request;
    if ((metadata('grpc-encoding') ?? 'identity') === 'identity' && body.length > OTLP_BODY_LIMIT) {
      throw new AppError(413, 'payload_too_large', `an uncompressed OTLP message may be at most ${OTLP_BODY_LIMIT} bytes (this one is ${body.length}); compress it with gzip`);
    }
    this.deps.ingest.checkOtlpRequest(principal.keyId, projectId);
    const scope = { principal, organizationId: principal.organizationId, userId: principal.userId, projectId };
    // grpc-js has already inflated a compressed message: the body goes on as it is.
    return exportOtlp(this.deps.ingest, scope, signal, { body, contentType: 'application/x-protobuf', contentEncoding: 'identity', format: 'protobuf' });
  }

  private toStatus(err: unknown): Partial<grpc.StatusObject> {
    if (err instanceof AppError) {
      const trailers = new grpc.Metadata();
      if (err.retryAfterSeconds !== undefined) trailers.set('retry-after', String(err.retryAfterSeconds));
      return { code: GRPC_STATUS[err.status] ?? grpc.status.INTERNAL, details: `${err.code}: ${err.message}`, metadata: trailers };
    }
    this.deps.logger.error({ err }, 'OTLP gRPC export failed');
    return { code: grpc.status.INTERNAL, details: 'internal error' };
  }
}
