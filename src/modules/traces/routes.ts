import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { encodeExportLogsResponse, encodeExportTraceResponse, otlpFormat, type OtlpFormat } from './ingest/index.ts';
import { checkCollectorTimes, collectorBodySchema, collectorSpans } from './collector.ts';
import type { TraceService } from './service.ts';
import {
  errorObjectSchema,
  newTracesRequestSchema,
  newTracesResponseSchema,
  searchRequestSchema,
  searchResponseSchema,
  shareSpanParams,
  shareBodySchema,
  shareStateSchema,
  spanParams,
  spanSchema,
  traceDetailSchema,
  traceIdParams,
  traceOutlineSchema,
} from './schemas.ts';

const tags = ['traces'];
/** What one OTLP request may be on the wire (compressed or not; ingest/otlp-decode-host.ts limits what it decompresses to). */
export const OTLP_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * Hot read routes: the zod response schema documents the answer (OpenAPI) but is not
 * re-validated per object on the way out — a 10,000-span trace would pay for it twice;
 * JSON text made by the service passes through as it is.
 */
const plainJson = () => (data: unknown) => (typeof data === 'string' ? data : JSON.stringify(data));

const objectErrors = { 400: errorObjectSchema, 401: errorObjectSchema, 403: errorObjectSchema, 404: errorObjectSchema };

export function traceRoutes(app: FastifyInstance, service: TraceService) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const orgOf = (req: FastifyRequest) => req.principal!.organizationId;
  // After authentication, before the body is read: a shed request costs no memory or decoding.
  const admitIngest = async (req: FastifyRequest) => service.checkIngestRequest(req.principal!.keyId, req.projectId!);
  const admitOtlp = async (req: FastifyRequest) => service.checkOtlpRequest(req.principal!.keyId, req.projectId!);
  app.addHook('onClose', () => service.close());

  r.post(
    '/api/trace/search',
    {
      config: { auth: { scope: 'project', permission: 'traces:view' }, errorShape: 'object' },
      serializerCompiler: plainJson,
      schema: { tags, summary: 'Search traces (keyset paging with scrollId)', body: searchRequestSchema, response: { 200: searchResponseSchema, ...objectErrors } },
    },
    (req) => service.search(req.projectId!, req.body),
  );

  r.post(
    '/api/trace/search/new',
    {
      config: { auth: { scope: 'project', permission: 'traces:view' }, errorShape: 'object' },
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Traces of a search first stored since a time (poll it to follow new traces live; the web app does)',
        body: newTracesRequestSchema,
        response: { 200: newTracesResponseSchema, ...objectErrors },
      },
    },
    (req) => service.newTraces(req.projectId!, req.body),
  );

  r.get(
    '/api/trace/:id',
    {
      config: { auth: { scope: 'project', permission: 'traces:view' }, errorShape: 'object' },
      serializerCompiler: plainJson,
      schema: { tags, summary: 'A trace with its spans and evaluations', params: traceIdParams, response: { 200: traceDetailSchema, ...objectErrors } },
    },
    async (req, reply) => reply.type('application/json; charset=utf-8').send((await service.detailStream(req.projectId!, req.params.id)) as never),
  );

  r.get(
    '/api/trace/:id/outline',
    {
      config: { auth: { scope: 'project', permission: 'traces:view' }, errorShape: 'object' },
      serializerCompiler: plainJson,
      schema: { tags, summary: 'A trace with every span in outline (no payloads): for span trees of big traces', params: traceIdParams, response: { 200: traceOutlineSchema, ...objectErrors } },
    },
    async (req, reply) => reply.type('application/json; charset=utf-8').send((await service.detailStream(req.projectId!, req.params.id, { outline: true })) as never),
  );

  r.get(
    '/api/trace/:id/spans/:spanId',
    {
      config: { auth: { scope: 'project', permission: 'traces:view' }, errorShape: 'object' },
      serializerCompiler: plainJson,
      schema: { tags, summary: 'One span of a trace, whole (input, output, params, attributes, events)', params: spanParams, response: { 200: spanSchema, ...objectErrors } },
    },
    async (req, reply) => reply.type('application/json; charset=utf-8').send((await service.spanJson(req.projectId!, req.params.id, req.params.spanId)) as never),
  );

  r.post(
    '/api/trace/:id/share',
    {
      config: { auth: { scope: 'project', permission: 'traces:share' }, errorShape: 'object' },
      schema: {
        tags,
        summary: 'Publish a trace under a public path (the same path when shared twice; the trace may arrive later)',
        params: traceIdParams,
        body: shareBodySchema,
        response: { 200: z.object({ path: z.string() }), ...objectErrors },
      },
    },
    (req) => service.share(orgOf(req), req.projectId!, req.params.id, req.body ?? {}),
  );

  r.get(
    '/api/trace/:id/share',
    {
      config: { auth: { scope: 'project', permission: 'traces:view' }, errorShape: 'object' },
      schema: { tags, summary: 'Whether a trace is shared, and its public path', params: traceIdParams, response: { 200: shareStateSchema, ...objectErrors } },
    },
    (req) => service.shareState(req.projectId!, req.params.id),
  );

  r.post(
    '/api/trace/:id/unshare',
    {
      config: { auth: { scope: 'project', permission: 'traces:share' }, errorShape: 'object' },
      schema: { tags, summary: 'Withdraw the public path of a trace', params: traceIdParams, response: { 200: z.object({ message: z.string() }), ...objectErrors } },
    },
    (req) => service.unshare(orgOf(req), req.projectId!, req.params.id),
  );

  // The path a share answers is followed by programs as well as by browsers: every client
  // but a browser navigation (web-app.ts serves that one the page) gets the trace's JSON there.
  const sharedTraceRoutes = [
    { url: '/api/share/:token', summary: 'A shared trace, without credentials' },
    { url: '/share/:token', summary: 'The public path a share answered: the shared trace as GET /api/share/{token} answers it (a browser navigation gets the web page instead)' },
  ];
  for (const { url, summary } of sharedTraceRoutes) {
    r.get(
      url,
      {
        config: { auth: { scope: 'public' }, errorShape: 'object' },
        serializerCompiler: plainJson,
        schema: { tags, summary, params: z.object({ token: z.string().max(100) }), response: { 200: traceDetailSchema, 404: errorObjectSchema } },
      },
      async (req, reply) => {
        if (!url.startsWith('/api/')) void reply.header('vary', 'accept');
        return reply.type('application/json; charset=utf-8').send((await service.sharedStream(req.params.token)) as never);
      },
    );
  }

  r.get(
    '/api/share/:token/outline',
    {
      config: { auth: { scope: 'public' }, errorShape: 'object' },
      serializerCompiler: plainJson,
      schema: { tags, summary: 'A shared trace in outline, without credentials', params: z.object({ token: z.string().max(100) }), response: { 200: traceOutlineSchema, 404: errorObjectSchema } },
    },
    async (req, reply) => reply.type('application/json; charset=utf-8').send((await service.sharedStream(req.params.token, { outline: true })) as never),
  );

  r.get(
    '/api/share/:token/spans/:spanId',
    {
      config: { auth: { scope: 'public' }, errorShape: 'object' },
      serializerCompiler: plainJson,
      schema: { tags, summary: 'One span of a shared trace, without credentials', params: shareSpanParams, response: { 200: spanSchema, 404: errorObjectSchema } },
    },
    async (req, reply) => reply.type('application/json; charset=utf-8').send((await service.sharedSpanJson(req.params.token, req.params.spanId)) as never),
  );

  r.post(
    '/api/collector',
    {
      // NUL characters are stored as U+FFFD (the store's jsonParam): a span is never refused for one.
      config: { auth: { scope: 'project', permission: 'traces:create' }, acceptsNulInBody: true, ingest: true },
      onRequest: admitIngest,
      bodyLimit: OTLP_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Send one trace as JSON (clients without OpenTelemetry)',
        body: collectorBodySchema,
        response: { 200: z.object({ message: z.string(), trace_id: z.string(), spans: z.number().int() }) },
      },
    },
    async (req) => {
      try {
        checkCollectorTimes(req.body, service.latestSpanTime());
      } catch (err) {
        service.countRejected(req.body.spans.length);
        throw err;
      }
      const spans = collectorSpans(req.body);
      await service.ingest(orgOf(req), req.projectId!, spans);
      return { message: 'Trace received successfully.', trace_id: req.body.trace_id, spans: spans.length };
    },
  );

  // OTLP/HTTP: protobuf or JSON bodies, plain or compressed, parsed here rather than by Fastify.
  void app.register(async (otlp) => {
    otlp.removeAllContentTypeParsers();
    otlp.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: OTLP_BODY_LIMIT }, (_req, body, done) => done(null, body));
    // One route per signal and path: the same parsing, answer and content type, what differs
    // is how the body is decoded and where it goes.
    // The body goes to a decode worker as it came (compressed or not): see service.decodeOtlpTraces.
    // Before the body is inflated, what it may inflate to is admitted against the process's budget, until it is answered.
    const exportRoute = (
      url: string,
      summary: string,
      handle: (req: FastifyRequest, body: Buffer, contentType: string, contentEncoding: string, format: OtlpFormat, maxInflatedBytes: number) => Promise<Buffer>,
    ) =>
      otlp.post(
        url,
        { config: { auth: { scope: 'project', permission: 'traces:create' }, ingest: true }, onRequest: admitOtlp, bodyLimit: OTLP_BODY_LIMIT, schema: { tags, summary } },
        async (req, reply) => {
          const contentType = String(req.headers['content-type'] ?? '');
          const format = requestFormat(contentType);
          const body = (req.body as Buffer | undefined) ?? Buffer.alloc(0);
          const contentEncoding = String(req.headers['content-encoding'] ?? 'identity');
          const inflight = service.admitOtlpBody(body, contentEncoding);
          let answer: Buffer;
          try {
            answer = await handle(req, body, contentType, contentEncoding, format, inflight.maxInflatedBytes);
          } finally {
            inflight.release();
          }
          void reply.header('content-type', format === 'protobuf' ? 'application/x-protobuf' : 'application/json');
          return reply.send(answer);
        },
      );
    const tracesSummary = 'OTLP/HTTP trace export (application/x-protobuf or application/json, gzip or deflate)';
    for (const url of ['/api/otel/v1/traces', '/v1/traces']) {
      exportRoute(url, url === '/v1/traces' ? 'The same as /api/otel/v1/traces, at the path OTLP exporters default to' : tracesSummary, async (req, body, contentType, contentEncoding, format, maxInflatedBytes) => {
        const { pieces, count, rejected, truncated } = await service.decodeOtlpTraces(body, contentType, contentEncoding, maxInflatedBytes);
        service.countRejected(rejected.count);
        if (count === 0 && rejected.count > 0) {
          throw new AppError(400, 'all_spans_rejected', `every span was rejected: ${rejected.messages.join('; ')}`, {
            field: 'resourceSpans',
            meta: { rejectedSpans: rejected.count },
          });
        }
        await service.ingestPrepared(orgOf(req), req.projectId!, pieces, count);
        return encodeExportTraceResponse(rejected, format, truncated);
      });
    }
    const logsSummary = 'OTLP/HTTP log export: GenAI events (gen_ai.*) merged into their spans; other records are rejected in the partial success';
    for (const url of ['/api/otel/v1/logs', '/v1/logs']) {
      exportRoute(url, url === '/v1/logs' ? 'The same as /api/otel/v1/logs, at the path OTLP exporters default to' : logsSummary, async (req, body, contentType, contentEncoding, format, maxInflatedBytes) => {
        const decoded = await service.decodeOtlpLogs(body, contentType, contentEncoding, maxInflatedBytes);
        if (decoded.accepted === 0 && decoded.rejected.count > 0) {
          throw new AppError(400, 'all_log_records_rejected', `every log record was rejected: ${decoded.rejected.messages.join('; ')}`, {
            field: 'resourceLogs',
            meta: { rejectedLogRecords: decoded.rejected.count },
          });
        }
        await service.ingestLogEvents(orgOf(req), req.projectId!, decoded.spans);
        return encodeExportLogsResponse(decoded.rejected, format);
      });
    }
  });
}

function requestFormat(contentType: string) {
  const format = otlpFormat(contentType);
  if (!format) {
    throw new AppError(415, 'unsupported_media_type', `content-type must be application/x-protobuf or application/json, not "${contentType || '(none)'}"`, { field: 'content-type' });
  }
  return format;
}
