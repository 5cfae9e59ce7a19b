/**
 * The OTLP trace messages, as opentelemetry-proto defines them
 * (opentelemetry/proto/{common,resource,trace}/v1 and collector/trace/v1): the
 * field numbers and wire types are the upstream ones (AnyValue's oneof is written
 * as optional fields, same bytes; see there), the comments are cut. Embedded as
 * text so no file has to be found at run time; parsed once, at import.
 */
import protobuf from 'protobufjs';

const COMMON_PROTO = `
syntax = "proto3";
package opentelemetry.proto.common.v1;

// Upstream wraps these seven fields in \`oneof value\`. On the wire a oneof member is
// just a field that is written even when it holds its default; \`optional\` gives the
// same explicit presence (an int_value of 0 stays 0) and spares protobufjs's oneof
// setter, which deletes the six sibling fields on every decoded value: a tenth of
// the whole decode-and-map time, measured.
message AnyValue {
  optional string string_value = 1;
  optional bool bool_value = 2;
  optional int64 int_value = 3;
  optional double double_value = 4;
  optional ArrayValue array_value = 5;
  optional KeyValueList kvlist_value = 6;
  optional bytes bytes_value = 7;
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue {
  string key = 1;
  AnyValue value = 2;
}
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
`;

const RESOURCE_PROTO = `
syntax = "proto3";
package opentelemetry.proto.resource.v1;

message Resource {
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 1;
  uint32 dropped_attributes_count = 2;
}
`;

const TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto.trace.v1;

message TracesData { repeated ResourceSpans resource_spans = 1; }

message ResourceSpans {
  opentelemetry.proto.resource.v1.Resource resource = 1;
  repeated ScopeSpans scope_spans = 2;
  string schema_url = 3;
  // Pre-1.0 senders wrote InstrumentationLibrarySpans here; its fields 1 (library
  // name = 1, version = 2) and 2 (spans) line up with ScopeSpans, so it decodes as one.
  repeated ScopeSpans instrumentation_library_spans = 1000;
}

message ScopeSpans {
  opentelemetry.proto.common.v1.InstrumentationScope scope = 1;
  repeated Span spans = 2;
  string schema_url = 3;
}

message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  fixed32 flags = 16;
  string name = 5;

  enum SpanKind {
    SPAN_KIND_UNSPECIFIED = 0;
    SPAN_KIND_INTERNAL = 1;
    SPAN_KIND_SERVER = 2;
    SPAN_KIND_CLIENT = 3;
    SPAN_KIND_PRODUCER = 4;
    SPAN_KIND_CONSUMER = 5;
  }
  SpanKind kind = 6;

  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;

  message Event {
    fixed64 time_unix_nano = 1;
    string name = 2;
    repeated opentelemetry.proto.common.v1.KeyValue attributes = 3;
    uint32 dropped_attributes_count = 4;
  }
  repeated Event events = 11;
  uint32 dropped_events_count = 12;

  message Link {
    bytes trace_id = 1;
    bytes span_id = 2;
    string trace_state = 3;
    repeated opentelemetry.proto.common.v1.KeyValue attributes = 4;
    uint32 dropped_attributes_count = 5;
    fixed32 flags = 6;
  }
  repeated Link links = 13;
  uint32 dropped_links_count = 14;

  Status status = 15;
}

message Status {
  reserved 1;
  string message = 2;
  enum StatusCode {
    STATUS_CODE_UNSET = 0;
    STATUS_CODE_OK = 1;
    STATUS_CODE_ERROR = 2;
  }
  StatusCode code = 3;
}
`;

const TRACE_SERVICE_PROTO = `
syntax = "proto3";
package opentelemetry.proto.collector.trace.v1;

message ExportTraceServiceRequest {
  repeated opentelemetry.proto.trace.v1.ResourceSpans resource_spans = 1;
}
message ExportTraceServiceResponse {
  ExportTracePartialSuccess partial_success = 1;
}
message ExportTracePartialSuccess {
  int64 rejected_spans = 1;
  string error_message = 2;
}
`;

// opentelemetry/proto/logs/v1 and collector/logs/v1: the log records GenAI instrumentations
// send their prompt and completion events as.
const LOGS_PROTO = `
syntax = "proto3";
package opentelemetry.proto.logs.v1;

message ResourceLogs {
  opentelemetry.proto.resource.v1.Resource resource = 1;
  repeated ScopeLogs scope_logs = 2;
  string schema_url = 3;
}
message ScopeLogs {
  opentelemetry.proto.common.v1.InstrumentationScope scope = 1;
  repeated LogRecord log_records = 2;
  string schema_url = 3;
}
message LogRecord {
  fixed64 time_unix_nano = 1;
  fixed64 observed_time_unix_nano = 11;
  int32 severity_number = 2;
  string severity_text = 3;
  opentelemetry.proto.common.v1.AnyValue body = 5;
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 6;
  uint32 dropped_attributes_count = 7;
  fixed32 flags = 8;
  bytes trace_id = 9;
  bytes span_id = 10;
  string event_name = 12;
}
`;

const LOGS_SERVICE_PROTO = `
syntax = "proto3";
package opentelemetry.proto.collector.logs.v1;

message ExportLogsServiceRequest {
  repeated opentelemetry.proto.logs.v1.ResourceLogs resource_logs = 1;
}
message ExportLogsServiceResponse {
  ExportLogsPartialSuccess partial_success = 1;
}
message ExportLogsPartialSuccess {
  int64 rejected_log_records = 1;
  string error_message = 2;
}
`;

const root = new protobuf.Root();
for (const source of [COMMON_PROTO, RESOURCE_PROTO, TRACE_PROTO, TRACE_SERVICE_PROTO, LOGS_PROTO, LOGS_SERVICE_PROTO]) {
  protobuf.parse(source, root, { keepCase: false });
}
root.resolveAll();

export const ExportTraceServiceRequestType = root.lookupType(
  'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
);
export const ExportTraceServiceResponseType = root.lookupType(
  'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse',
);

export const ExportLogsServiceRequestType = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
export const ExportLogsServiceResponseType = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse');

/**
 * A reader for request bodies. protobufjs checks proto3 strings with its own UTF-8
 * decoder, which builds short strings 8 characters at a time: every attribute key
 * comes out as a rope, flattened again the first time it is hashed or compared.
 * Node's decoder returns flat strings (decode plus first use measured ~15% faster);
 * invalid UTF-8 becomes U+FFFD instead of failing the whole request.
 */
class OtlpReader extends protobuf.BufferReader {
  override stringVerify(): string {
    return this.string();
  }
}

export function decodeExportTraceServiceRequest(body: Buffer): PbExportTraceServiceRequest {
  return ExportTraceServiceRequestType.decode(new OtlpReader(body)) as unknown as PbExportTraceServiceRequest;
}

export function decodeExportLogsServiceRequest(body: Buffer): PbExportLogsServiceRequest {
  return ExportLogsServiceRequestType.decode(new OtlpReader(body)) as unknown as PbExportLogsServiceRequest;
}

/**
 * The decoded message shapes protobufjs produces from the schema above (camelCase
 * names). Absent scalars read as the proto3 default from the prototype; absent
 * messages read as null; 64-bit integers come back as `Long` objects.
 */
export interface PbLong {
  low: number;
  high: number;
  unsigned: boolean;
}
export type PbInt64 = PbLong | number;

export interface PbAnyValue {
  stringValue: string;
  boolValue: boolean;
  intValue: PbInt64;
  doubleValue: number;
  arrayValue: { values: PbAnyValue[] } | null;
  kvlistValue: { values: PbKeyValue[] } | null;
  bytesValue: Uint8Array;
}
export interface PbKeyValue {
  key: string;
  value: PbAnyValue | null;
}
export interface PbEvent {
  timeUnixNano: PbInt64;
  name: string;
  attributes: PbKeyValue[];
}
export interface PbLink {
  traceId: Uint8Array;
  spanId: Uint8Array;
  attributes: PbKeyValue[];
}
export interface PbSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId: Uint8Array;
  name: string;
  kind: number;
  startTimeUnixNano: PbInt64;
  endTimeUnixNano: PbInt64;
  attributes: PbKeyValue[];
  events: PbEvent[];
  links: PbLink[];
  status: { message: string; code: number } | null;
}
export interface PbScopeSpans {
  scope: { name: string; version: string } | null;
  spans: PbSpan[];
}
export interface PbResourceSpans {
  resource: { attributes: PbKeyValue[] } | null;
  scopeSpans: PbScopeSpans[];
  instrumentationLibrarySpans: PbScopeSpans[];
}
export interface PbExportTraceServiceRequest {
  resourceSpans: PbResourceSpans[];
}
export interface PbLogRecord {
  timeUnixNano: PbInt64;
  observedTimeUnixNano: PbInt64;
  body: PbAnyValue | null;
  attributes: PbKeyValue[];
  traceId: Uint8Array;
  spanId: Uint8Array;
  eventName: string;
}
export interface PbExportLogsServiceRequest {
  resourceLogs: { resource: { attributes: PbKeyValue[] } | null; scopeLogs: { logRecords: PbLogRecord[] }[] }[];
}
