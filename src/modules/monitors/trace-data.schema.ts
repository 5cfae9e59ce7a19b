/**
 * What a trace gives an evaluator, shared by monitors and the web app's playground ("fill
 * from a trace"). A schema file the web app imports at run time: plain TypeScript, no imports.
 */
export interface TraceDetailLike {
  input: { value: string };
  output: { value: string };
  spans: { type: string; output: unknown; input: unknown }[];
  metrics?: { total_time_ms?: number | null; total_cost?: number | null };
}

/** The evaluator data a trace offers: its input and output, retrieved contexts, the conversation, its latency and cost when known. */
export function traceData(detail: TraceDetailLike): Record<string, unknown> {
  const contexts: string[] = [];
  for (const s of detail.spans) {
    if (s.type !== 'rag' && s.type !== 'retriever') continue;
    const out = s.output as { type?: string; value?: unknown } | null;
    const value = out?.value;
    const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
    for (const item of items) {
      if (typeof item === 'string') contexts.push(item);
      else if (item && typeof item === 'object') {
        const o = item as Record<string, unknown>;
        const text = o.content ?? o.text ?? o.page_content ?? o.document;
        contexts.push(typeof text === 'string' ? text : JSON.stringify(item));
      }
    }
  }
  const input = detail.input.value;
  const output = detail.output.value;
  const latency = detail.metrics?.total_time_ms;
  const cost = detail.metrics?.total_cost;
  return {
    input,
    output,
    ...(typeof latency === 'number' ? { latency_ms: latency } : {}),
    ...(typeof cost === 'number' ? { cost } : {}),
    contexts,
    conversation: [
      ...(input ? [{ role: 'user', content: input }] : []),
      ...(output ? [{ role: 'assistant', content: output }] : []),
    ],
  };
}
