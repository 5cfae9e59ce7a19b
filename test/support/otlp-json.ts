/**
 * OTLP/JSON trace requests as tests post them: the envelope (one resource named by its
 * service.name, one scope) around the spans a test writes, and string attributes from a record.
 */
export function otlpJsonRequest(service: string, spans: object[]) {
  return {
    resourceSpans: [{ resource: { attributes: stringAttributes({ 'service.name': service }) }, scopeSpans: [{ spans }] }],
  };
}

/** OTLP attributes with string values, in the record's order. */
export function stringAttributes(attributes: Record<string, string>) {
  return Object.entries(attributes).map(([key, stringValue]) => ({ key, value: { stringValue } }));
}
