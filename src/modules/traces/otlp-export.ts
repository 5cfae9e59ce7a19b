import { AppError } from '../../platform/errors.ts';
import type { ProjectScope } from '../../platform/http/route-group.ts';
import { encodeExportLogsResponse, encodeExportTraceResponse, type OtlpFormat } from './ingest/index.ts';
import type { TraceIngest } from './ingest.ts';

/** One OTLP export request as it came, over HTTP or gRPC: the body as received (compressed or not). */
export interface OtlpExport {
  body: Buffer;
  contentType: string;
  /** `identity`, `gzip` or `deflate`: the decode worker inflates the body. */
  contentEncoding: string;
  format: OtlpFormat;
}

export type OtlpSignal = 'traces' | 'logs';

/** What one OTLP request may be on the wire (compressed or not; ingest/otlp-decode-worker.ts limits what it decompresses to). */
export const OTLP_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * An OTLP export from body to answer, the one path both transports take: the body is admitted
 * against the process's budget for what it may inflate to (until it is answered), decoded on
 * a worker, ingested, and answered as an Export*ServiceResponse in the request's format.
 */
export async function exportOtlp(ingest: TraceIngest, scope: ProjectScope, signal: OtlpSignal, request: OtlpExport): Promise<Buffer> {
  const inflight = ingest.admitOtlpBody(request.body, request.contentEncoding);
  try {
    return await (signal === 'traces' ? exportTraces : exportLogs)(ingest, scope, request, inflight.maxInflatedBytes);
  } finally {
    inflight.release();
  }
}

async function exportTraces(ingest: TraceIngest, scope: ProjectScope, request: OtlpExport, maxInflatedBytes: number): Promise<Buffer> {
  const { pieces, count, rejected, truncated } = await ingest.decodeOtlpTraces(request.body, request.contentType, request.contentEncoding, maxInflatedBytes);
  ingest.countRejected(rejected.count);
  if (count === 0 && rejected.count > 0) {
    throw new AppError(400, 'all_spans_rejected', `every span was rejected: ${rejected.messages.join('; ')}`, {
      field: 'resourceSpans',
      meta: { rejectedSpans: rejected.count },
    });
  }
  await ingest.ingestPrepared(scope.organizationId, scope.projectId, pieces, count);
  return encodeExportTraceResponse(rejected, request.format, truncated);
}

async function exportLogs(ingest: TraceIngest, scope: ProjectScope, request: OtlpExport, maxInflatedBytes: number): Promise<Buffer> {
  const decoded = await ingest.decodeOtlpLogs(request.body, request.contentType, request.contentEncoding, maxInflatedBytes);
  if (decoded.accepted === 0 && decoded.rejected.count > 0) {
    throw new AppError(400, 'all_log_records_rejected', `every log record was rejected: ${decoded.rejected.messages.join('; ')}`, {
      field: 'resourceLogs',
      meta: { rejectedLogRecords: decoded.rejected.count },
    });
  }
  await ingest.ingestLogEvents(scope.organizationId, scope.projectId, decoded.spans);
  return encodeExportLogsResponse(decoded.rejected, request.format);
}
