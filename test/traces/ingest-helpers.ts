/**
 * Test helpers for OTLP ingest: fixture loading, and spans produced by the real
 * OpenTelemetry JS SDK, serialized by the exporters' own OTLP serializers.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { ROOT_CONTEXT, type Context, type ContextManager, type Tracer } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { ExportTraceServiceRequestType } from '../../src/modules/traces/ingest/otlp-schema.ts';

const FIXTURES = new URL('../fixtures/otel/', import.meta.url);

export function fixtureBuffer(name: string): Buffer {
  return readFileSync(new URL(name, FIXTURES));
}

export function fixtureJson<T = unknown>(name: string): T {
  return JSON.parse(fixtureBuffer(name).toString('utf8')) as T;
}

export const DEFAULT_RESOURCE = {
  'service.name': 'ingest-test',
  'telemetry.sdk.name': 'opentelemetry',
  'telemetry.sdk.language': 'nodejs',
  'telemetry.sdk.version': '2.12.1',
};

/** A tracer backed by an in-memory exporter; `spans()` returns the finished spans. */
export function memoryTracer(resource: Record<string, string> = DEFAULT_RESOURCE, scope = 'ingest-test') {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer: Tracer = provider.getTracer(scope, '1.0.0');
  return { tracer, provider, spans: (): ReadableSpan[] => exporter.getFinishedSpans() };
}

export function toOtlpProtobuf(spans: ReadableSpan[]): Buffer {
  const bytes = ProtobufTraceSerializer.serializeRequest(spans);
  if (!bytes) throw new Error('the protobuf serializer returned nothing');
  return Buffer.from(bytes);
}

export function toOtlpJson(spans: ReadableSpan[]): Buffer {
  const bytes = JsonTraceSerializer.serializeRequest(spans);
  if (!bytes) throw new Error('the JSON serializer returned nothing');
  return Buffer.from(bytes);
}

/**
 * The context manager the Node SDK would install (the API alone has a no-op one),
 * so spans started inside `startActiveSpan` callbacks get their parents.
 */
export class AsyncLocalContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(context, () => fn.call(thisArg, ...args));
  }

  bind<T>(_context: Context, target: T): T {
    return target;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}

/**
 * OTLP/JSON -> OTLP protobuf bytes through the schema (hex ids to bytes on the way),
 * so every JSON fixture can also be fed to the protobuf decoder.
 */
export function otlpJsonToProtobuf(doc: unknown): Buffer {
  const idKeys = new Set(['traceId', 'spanId', 'parentSpanId']);
  const convert = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(convert);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      out[key] = idKeys.has(key) && typeof v === 'string' ? Buffer.from(v, 'hex') : convert(v);
    }
    return out;
  };
  const message = ExportTraceServiceRequestType.fromObject(convert(doc) as Record<string, unknown>);
  return Buffer.from(ExportTraceServiceRequestType.encode(message).finish());
}
