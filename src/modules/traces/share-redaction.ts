/**
 * What a public share hides from its visitors, chosen when sharing and kept with the token:
 * the end user (the trace's user_id and user attributes of its spans), the trace's metadata,
 * the spans' attributes (and resource attributes). Hidden fields are emptied, not removed:
 * the answers keep their shape.
 */
export interface ShareOptions {
  hide_user: boolean;
  hide_metadata: boolean;
  hide_span_attributes: boolean;
}

/**
 * A share made through the API without saying: everything shown, as shares always were (a
 * program's share answers stay the same). The web app's share dialog asks, and hides the end
 * user unless the person unticks it.
 */
export const DEFAULT_SHARE_OPTIONS: ShareOptions = { hide_user: false, hide_metadata: false, hide_span_attributes: false };

const hidesAnything = (o: ShareOptions) => o.hide_user || o.hide_metadata || o.hide_span_attributes;

/** Attribute keys naming the end user: user.id, enduser.id, langwatch.user.id, gen_ai.user.email, user_id... */
const USER_KEY = /(^|[._])(end_?)?user([._]|$)/i;

/** The trace's head (metadata) as a visitor of the share sees it. */
export function redactTraceHead<T extends { metadata?: Record<string, unknown> }>(trace: T, o: ShareOptions): T {
  if (!hidesAnything(o) || !trace.metadata) return trace;
  if (o.hide_metadata) return { ...trace, metadata: o.hide_user || trace.metadata.user_id === undefined ? {} : { user_id: trace.metadata.user_id } };
  if (!o.hide_user) return trace;
  return { ...trace, metadata: Object.fromEntries(Object.entries(trace.metadata).filter(([k]) => !USER_KEY.test(k))) };
}

type SpanLike = Record<string, unknown> & { attributes?: Record<string, unknown> | null; resource?: Record<string, unknown> | null };

/** One span (whole) as a visitor of the share sees it. */
export function redactSpan(span: SpanLike, o: ShareOptions): SpanLike {
  if (!hidesAnything(o)) return span;
  const out: SpanLike = { ...span };
  if (o.hide_span_attributes) {
    if (out.attributes) out.attributes = {};
    if (out.resource) out.resource = {};
  } else if (o.hide_user) {
    for (const key of ['attributes', 'resource'] as const) {
      const attrs = out[key];
      if (attrs) out[key] = Object.fromEntries(Object.entries(attrs).filter(([k]) => !USER_KEY.test(k)));
    }
  }
  if ((o.hide_user || o.hide_metadata) && out.trace_metadata && typeof out.trace_metadata === 'object') {
    out.trace_metadata = redactTraceHead({ metadata: out.trace_metadata as Record<string, unknown> }, o).metadata;
  }
  return out;
}

/** A span as JSON text (GET /api/share/{token}/spans/{spanId}). */
export function redactSpanJson(json: string, o: ShareOptions): string {
  return hidesAnything(o) ? JSON.stringify(redactSpan(JSON.parse(json) as SpanLike, o)) : json;
}

/** A page of the streamed detail's spans: `span,span` or `,span,span` (JSON text). */
export function redactSpanPage(page: string, o: ShareOptions): string {
  if (!hidesAnything(o)) return page;
  const comma = page.startsWith(',');
  const spans = JSON.parse(`[${comma ? page.slice(1) : page}]`) as SpanLike[];
  return (comma ? ',' : '') + spans.map((s) => JSON.stringify(redactSpan(s, o))).join(',');
}
