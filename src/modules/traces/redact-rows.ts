/**
 * Privacy at ingest on the traces side: which parts of a span row hold what an application
 * sent, and the row again with them redacted. The privacy module decides what is personal
 * data (TraceExtension.redactor); this file only knows the row's shape.
 */
import type { SpanPayload } from './ingest/types.ts';
import type { ValueRedactor } from './context.ts';
import { clipSpanText, type SpanRow } from './span-rows.ts';
import { payloadText } from './summary.ts';

/** The row with every text an application sent redacted, and `data.redactions` recording what went (no values). */
export function redactSpanRow(row: SpanRow, r: ValueRedactor): SpanRow {
  const d = row.data as Record<string, unknown> & { input?: SpanPayload | null; output?: SpanPayload | null };
  const input = redactPayload(d.input ?? null, 'input', r);
  const output = redactPayload(d.output ?? null, 'output', r);
  const data: Record<string, unknown> = {
    ...d,
    input,
    output,
    params: r.value(d.params, 'params'),
    attributes: r.value(d.attributes, 'attributes'),
    resource: r.value(d.resource, 'resource'),
    events: r.value(d.events, 'events'),
    links: r.value(d.links, 'links'),
    status: r.value(d.status, 'status'),
  };
  const redacted: SpanRow = {
    ...row,
    error: r.value(row.error, 'error'),
    trace_meta: r.value(row.trace_meta, 'metadata'),
    input_text: clipSpanText(payloadText(input, 'input')),
    output_text: clipSpanText(payloadText(output, 'output')),
    data,
  };
  const counts = r.take();
  // A span sent again keeps the record of its last version only, as it keeps its contents.
  if (Object.keys(counts).length > 0) data.redactions = counts;
  else delete data.redactions;
  return redacted;
}

function redactPayload(p: SpanPayload | null, field: string, r: ValueRedactor): SpanPayload | null {
  if (!p) return p;
  // Only the value: the payload's type is the server's word, not the application's.
  return { ...p, value: r.value(p.value, field) } as SpanPayload;
}
