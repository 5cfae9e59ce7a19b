/**
 * The OpenTelemetry setup of the AI SDK tests: a Node tracer provider (AsyncLocalStorage
 * context) registered globally, exporting OTLP/protobuf to Spyglass one span at a time.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TestApp } from '../support/harness.ts';

export function registerExporter(t: TestApp, serviceName: string): NodeTracerProvider {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [
      new SimpleSpanProcessor(
        // 60 s, not the exporter's 10 s: the first export reaches an app just started on two shared cores.
      new OTLPTraceExporter({ url: `${t.baseUrl}/api/otel/v1/traces`, headers: { authorization: `Bearer ${t.creds.projectApiKey}` }, timeoutMillis: 60_000 }),
      ),
    ],
  });
  provider.register();
  return provider;
}
