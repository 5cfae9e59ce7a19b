import { context, trace, type Attributes, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';

export type ExporterKind = 'protobuf' | 'json';

/**
 * Sends spans through the real OpenTelemetry exporters (what applications use), one
 * HTTP request per ended span, and waits until every export is acknowledged.
 */
export async function withExporter(
  baseUrl: string,
  headers: Record<string, string>,
  kind: ExporterKind,
  build: (tracer: Tracer) => void | Promise<void>,
  resource: Attributes = { 'service.name': 'spyglass-tests' },
): Promise<void> {
  const config = { url: `${baseUrl}/api/otel/v1/traces`, headers };
  const exporter = kind === 'protobuf' ? new ProtoExporter(config) : new JsonExporter(config);
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes(resource)),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  await build(provider.getTracer('spyglass-tests', '1.0.0'));
  await provider.forceFlush();
  await provider.shutdown();
}

/** Starts a child span of `parent` (or a root) with explicit times. */
export function spanAt(tracer: Tracer, name: string, attributes: Attributes, startMs: number, endMs: number, parent?: ReturnType<Tracer['startSpan']>) {
  const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
  const span = tracer.startSpan(name, { attributes, startTime: startMs }, ctx);
  return { span, end: () => span.end(endMs) };
}
