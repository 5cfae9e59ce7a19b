import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { projectRoute, projectScope, routeGroup } from '../../platform/http/route-group.ts';
import { otlpFormat } from './ingest/index.ts';
import { exportOtlp, OTLP_BODY_LIMIT, type OtlpSignal } from './otlp-export.ts';
import { checkCollectorTimes, collectorBodySchema, collectorSpans } from './collector.ts';
import type { TraceContext } from './context.ts';
import type { TraceIngest } from './ingest.ts';
import { detailStream, searchSpans, spanJson } from './reads.ts';
import { newTraces, search } from './search.ts';
import { share as shareTrace, sharedSpanJson, sharedStream, shareState, unshare } from './shares.ts';
import { createView, deleteView, listViews, updateView } from './views.ts';
import {
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
  spanSearchQuery,
  spanSearchResponseSchema,
  createViewBody,
  updateViewBody,
  viewIdParams,
  traceViewSchema,
} from './schemas.ts';


/**
 * Hot read routes: the zod response schema documents the answer (OpenAPI) but is not
 * re-validated per object on the way out — a 10,000-span trace would pay for it twice;
 * JSON text made by the use cases passes through as it is.
 */
export const plainJson = () => (data: unknown) => (typeof data === 'string' ? data : JSON.stringify(data));

/**
 * Trace routes in three groups: reading, searching and sharing traces (/api/trace) and the
 * public shared-trace paths answer the shared Error object (spec: Errors); ingestion
 * (collector and OTLP) answers the nested shape.
 */
export function traceRoutes(app: FastifyInstance, { ctx, ingestion: ingest }: { ctx: TraceContext; ingestion: TraceIngest }) {
  app.addHook('onClose', () => ingest.close());
  // After authentication, before the body is read: a shed request costs no memory or decoding.
  const admit = (check: (keyId: string, projectId: string) => void) => (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    try {
      const { principal, projectId } = projectScope(req);
      check(principal.keyId, projectId);
      done();
    } catch (err) {
      done(err as Error);
    }
  };
  const admitIngest = admit((keyId, projectId) => ingest.checkIngestRequest(keyId, projectId));
  const admitOtlp = admit((keyId, projectId) => ingest.checkOtlpRequest(keyId, projectId));
  const view = { auth: { scope: 'project', permission: 'traces:view' } } as const;
  const share = { auth: { scope: 'project', permission: 'traces:share' } } as const;

  // LangWatch serves its v1 trace routes under /api/traces, where its SDKs call them
  // (langwatch.traces.get and .search): the same search and detail as /api/trace.
  for (const prefix of ['/api/trace', '/api/traces']) {
    routeGroup(app, { prefix, errors: 'object', tag: { name: 'traces', title: 'Traces' } }, (r, g) => {
      const project = projectRoute(r);
      const alias = prefix === '/api/traces' ? ' (the path of the LangWatch SDKs\' traces.search / traces.get)' : '';
      project.post(
        '/search',
        {
          config: view,
          serializerCompiler: plainJson,
          schema: { summary: `Search traces (keyset paging with scrollId)${alias}`, body: searchRequestSchema, response: { 200: searchResponseSchema } },
        },
        (req, { projectId }) => search(ctx, projectId, req.body),
      );
      project.get(
        '/:id',
        {
          config: view,
          serializerCompiler: plainJson,
          schema: { summary: `A trace with its spans and evaluations${alias}`, params: traceIdParams, response: { 200: traceDetailSchema, ...g.errors(404) } },
        },
        async (req, { projectId }, reply) => reply.type('application/json; charset=utf-8').send((await detailStream(ctx, projectId, req.params.id)) as never),
      );
    });
  }

  routeGroup(app, { prefix: '/api/trace', errors: 'object', tag: { name: 'traces', title: 'Traces' } }, (r, g) => {
    const project = projectRoute(r);

    project.post(
      '/search/new',
      {
        config: view,
        serializerCompiler: plainJson,
        schema: {
          summary: 'Traces of a search first stored since a time (poll it to follow new traces live; the web app does)',
          body: newTracesRequestSchema,
          response: { 200: newTracesResponseSchema },
        },
      },
      (req, { projectId }) => newTraces(ctx, projectId, req.body),
    );

    project.get(
      '/:id/outline',
      {
        config: view,
        serializerCompiler: plainJson,
        schema: {
          summary: 'A trace with every span in outline (no payloads): for span trees of big traces',
          params: traceIdParams,
          response: { 200: traceOutlineSchema, ...g.errors(404) },
        },
      },
      async (req, { projectId }, reply) =>
        reply.type('application/json; charset=utf-8').send((await detailStream(ctx, projectId, req.params.id, { outline: true })) as never),
    );

    project.get(
      '/:id/spans/:spanId',
      {
        config: view,
        serializerCompiler: plainJson,
        schema: {
          summary: 'One span of a trace, whole (input, output, params, attributes, events)',
          params: spanParams,
          response: { 200: spanSchema, ...g.errors(404) },
        },
      },
      async (req, { projectId }, reply) =>
        reply.type('application/json; charset=utf-8').send((await spanJson(ctx, projectId, req.params.id, req.params.spanId)) as never),
    );

    project.get(
      '/:id/span-search',
      {
        config: view,
        schema: {
          summary: "Spans of a trace whose name, type, model, input, output, error message or attribute values contain the text (case-insensitive), in start order",
          params: traceIdParams,
          querystring: spanSearchQuery,
          response: { 200: spanSearchResponseSchema, ...g.errors(404) },
        },
      },
      (req, { projectId }) => searchSpans(ctx, projectId, req.params.id, req.query.q),
    );

    project.post(
      '/:id/share',
      {
        config: share,
        schema: {
          summary: 'Publish a trace under a public path (the same path when shared twice; the trace may arrive later)',
          params: traceIdParams,
          body: shareBodySchema,
          response: { 200: z.object({ path: z.string() }) },
        },
      },
      (req, { organizationId, projectId }) => shareTrace(ctx, organizationId, projectId, req.params.id, req.body ?? {}),
    );

    project.get(
      '/:id/share',
      {
        config: view,
        schema: { summary: 'Whether a trace is shared, and its public path', params: traceIdParams, response: { 200: shareStateSchema } },
      },
      (req, { projectId }) => shareState(ctx, projectId, req.params.id),
    );

    project.post(
      '/:id/unshare',
      {
        config: share,
        schema: { summary: 'Withdraw the public path of a trace', params: traceIdParams, response: { 200: z.object({ message: z.string() }) } },
      },
      (req, { organizationId, projectId }) => unshare(ctx, organizationId, projectId, req.params.id),
    );
  });

  // Saved views of the traces list, shared with the project.
  routeGroup(app, { prefix: '/api/trace-views', errors: 'object', tag: { name: 'trace views', title: 'Trace views' } }, (r, g) => {
    const project = projectRoute(r);
    project.get(
      '/',
      { config: view, schema: { summary: "The project's saved views of the traces list, by name", response: { 200: z.object({ data: z.array(traceViewSchema) }) } } },
      (_req, { projectId }) => listViews(ctx, projectId),
    );
    project.post(
      '/',
      {
        config: { auth: { scope: 'project', permission: 'traces:create' } },
        schema: { summary: 'Save a view: a name, the list search (filters, sort) and the columns', body: createViewBody, response: { 201: traceViewSchema, ...g.errors(409) } },
      },
      async (req, { projectId, userId }, reply) => reply.code(201).send(await createView(ctx, projectId, userId, req.body)),
    );
    project.patch(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'traces:update' } },
        schema: { summary: 'Rename a view or change its search or columns', params: viewIdParams, body: updateViewBody, response: { 200: traceViewSchema, ...g.errors(404, 409) } },
      },
      (req, { projectId }) => updateView(ctx, projectId, req.params.id, req.body),
    );
    project.delete(
      '/:id',
      {
        config: { auth: { scope: 'project', permission: 'traces:delete' } },
        schema: { summary: 'Delete a saved view', params: viewIdParams, response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...g.errors(404) } },
      },
      (req, { projectId }) => deleteView(ctx, projectId, req.params.id),
    );
  });

  // The path a share answers is followed by programs as well as by browsers: every client
  // but a browser navigation (web-app.ts serves that one the page) gets the trace's JSON there.
  routeGroup(app, { errors: 'object', tag: { name: 'traces', title: 'Traces' } }, (r, g) => {
    const sharedTraceRoutes = [
      { url: '/api/share/:token', summary: 'A shared trace, without credentials' },
      { url: '/share/:token', summary: 'The public path a share answered: the shared trace as GET /api/share/{token} answers it (a browser navigation gets the web page instead)' },
    ];
    const tokenParams = z.object({ token: z.string().max(100) });
    for (const { url, summary } of sharedTraceRoutes) {
      r.get(
        url,
        {
          config: { auth: { scope: 'public' } },
          serializerCompiler: plainJson,
          schema: { summary, params: tokenParams, response: { 200: traceDetailSchema, ...g.errors(404) } },
        },
        async (req, reply) => {
          if (!url.startsWith('/api/')) void reply.header('vary', 'accept');
          return reply.type('application/json; charset=utf-8').send((await sharedStream(ctx, req.params.token)) as never);
        },
      );
    }

    r.get(
      '/api/share/:token/outline',
      {
        config: { auth: { scope: 'public' } },
        serializerCompiler: plainJson,
        schema: { summary: 'A shared trace in outline, without credentials', params: tokenParams, response: { 200: traceOutlineSchema, ...g.errors(404) } },
      },
      async (req, reply) => reply.type('application/json; charset=utf-8').send((await sharedStream(ctx, req.params.token, { outline: true })) as never),
    );

    r.get(
      '/api/share/:token/spans/:spanId',
      {
        config: { auth: { scope: 'public' } },
        serializerCompiler: plainJson,
        schema: { summary: 'One span of a shared trace, without credentials', params: shareSpanParams, response: { 200: spanSchema, ...g.errors(404) } },
      },
      async (req, reply) => reply.type('application/json; charset=utf-8').send((await sharedSpanJson(ctx, req.params.token, req.params.spanId)) as never),
    );
  });

  routeGroup(app, { errors: 'nested', tag: { name: 'traces', title: 'Traces' } }, (r, g) => {
    /** Beyond the group's own: the project deleted meanwhile (404), the key's rate (429), the server's ingest queue (503). */
    const ingestErrors = g.errors(404, 413, 415, 429, 503);
    projectRoute(r).post(
      '/api/collector',
      {
        // NUL characters are stored as U+FFFD (the store's jsonParam): a span is never refused for one.
        config: { auth: { scope: 'project', permission: 'traces:create' }, acceptsNulInBody: true, ingest: true },
        onRequest: admitIngest,
        bodyLimit: OTLP_BODY_LIMIT,
        schema: {
          summary: 'Send one trace as JSON (clients without OpenTelemetry)',
          body: collectorBodySchema,
          response: { 200: z.object({ message: z.string(), trace_id: z.string(), spans: z.number().int() }), ...ingestErrors },
        },
      },
      async (req, { organizationId, projectId }) => {
        try {
          checkCollectorTimes(req.body, ingest.latestSpanTime());
        } catch (err) {
          ingest.countRejected(req.body.spans.length);
          throw err;
        }
        const spans = collectorSpans(req.body);
        await ingest.ingest(organizationId, projectId, spans);
        return { message: 'Trace received successfully.', trace_id: req.body.trace_id, spans: spans.length };
      },
    );

    // OTLP/HTTP: protobuf or JSON bodies, plain or compressed, parsed here rather than by Fastify.
    void r.register((otlp, _opts, done) => {
      otlp.removeAllContentTypeParsers();
      otlp.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: OTLP_BODY_LIMIT }, (_req, body, done) => done(null, body));
      // One route per signal and path: the same parsing, answer and content type; the body goes
      // to exportOtlp as it came (compressed or not), the path OTLP over gRPC takes too.
      const exportRoute = (url: string, summary: string, signal: OtlpSignal) =>
        projectRoute(otlp).post(
          url,
          {
            config: { auth: { scope: 'project', permission: 'traces:create' }, ingest: true },
            onRequest: admitOtlp,
            bodyLimit: OTLP_BODY_LIMIT,
            schema: {
              summary,
              // The answer is bytes the handler encodes (protobuf or JSON, as the request was): described here, never serialized.
              response: { 200: z.unknown().describe('ExportTraceServiceResponse / ExportLogsServiceResponse, in the format of the request'), ...ingestErrors },
            },
          },
          async (req, scope, reply) => {
            const contentType = String(req.headers['content-type'] ?? '');
            const format = requestFormat(contentType);
            const body = (req.body as Buffer | undefined) ?? Buffer.alloc(0);
            const contentEncoding = String(req.headers['content-encoding'] ?? 'identity');
            const answer = await exportOtlp(ingest, scope, signal, { body, contentType, contentEncoding, format });
            void reply.header('content-type', format === 'protobuf' ? 'application/x-protobuf' : 'application/json');
            return reply.send(answer);
          },
        );
      const tracesSummary = 'OTLP/HTTP trace export (application/x-protobuf or application/json, gzip or deflate)';
      for (const url of ['/api/otel/v1/traces', '/v1/traces']) {
        exportRoute(url, url === '/v1/traces' ? 'The same as /api/otel/v1/traces, at the path OTLP exporters default to' : tracesSummary, 'traces');
      }
      const logsSummary = 'OTLP/HTTP log export: GenAI events (gen_ai.*) merged into their spans; other records are rejected in the partial success';
      for (const url of ['/api/otel/v1/logs', '/v1/logs']) {
        exportRoute(url, url === '/v1/logs' ? 'The same as /api/otel/v1/logs, at the path OTLP exporters default to' : logsSummary, 'logs');
      }
      done();
    });
  });
}

function requestFormat(contentType: string) {
  const format = otlpFormat(contentType);
  if (!format) {
    throw new AppError(415, 'unsupported_media_type', `content-type must be application/x-protobuf or application/json, not "${contentType || '(none)'}"`, { field: 'content-type' });
  }
  return format;
}
