/** The public page of a shared trace: server-rendered HTML, no script, every value escaped. */
const esc = (v: unknown) =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

interface SpanLike {
  span_id: string;
  parent_id: string | null;
  name: string | null;
  type: string;
  model: string | null;
  timestamps: { started_at: number; finished_at: number };
  metrics: { prompt_tokens: number | null; completion_tokens: number | null; cost?: number | null };
  input: unknown;
  output: unknown;
  error: { message: string } | null;
}

interface TraceLike {
  trace_id: string;
  input: { value: string };
  output: { value: string };
  metrics: { total_time_ms: number | null; prompt_tokens: number | null; completion_tokens: number | null; total_cost?: number | null };
  timestamps: { started_at: number };
  error: { message: string } | null;
  spans: SpanLike[];
}

function payloadHtml(p: unknown): string {
  if (!p || typeof p !== 'object') return '';
  const payload = p as { type: string; value: unknown };
  if (payload.type === 'chat_messages' && Array.isArray(payload.value)) {
    return payload.value
      .map((m: { role?: string; content?: unknown }) => `<div class="msg"><b>${esc(m.role)}</b> ${esc(typeof m.content === 'string' ? m.content : JSON.stringify(m.content))}</div>`)
      .join('');
  }
  return `<pre>${esc(typeof payload.value === 'string' ? payload.value : JSON.stringify(payload.value, null, 2))}</pre>`;
}

export function renderSharePage(trace: TraceLike): string {
  const children = new Map<string | null, SpanLike[]>();
  const ids = new Set(trace.spans.map((s) => s.span_id));
  for (const s of trace.spans) {
    const parent = s.parent_id && ids.has(s.parent_id) ? s.parent_id : null;
    (children.get(parent) ?? children.set(parent, []).get(parent)!).push(s);
  }
  const renderSpan = (s: SpanLike, depth: number): string => {
    const ms = s.timestamps.finished_at - s.timestamps.started_at;
    const tokens = s.metrics.prompt_tokens !== null || s.metrics.completion_tokens !== null
      ? ` · ${s.metrics.prompt_tokens ?? 0} → ${s.metrics.completion_tokens ?? 0} tokens` : '';
    const body = `<details class="span" style="margin-left:${Math.min(depth, 20) * 16}px" data-span-id="${esc(s.span_id)}">
  <summary><span class="type">${esc(s.type)}</span> ${esc(s.name ?? s.span_id)}${s.model ? ` <span class="model">${esc(s.model)}</span>` : ''} <span class="dim">${ms} ms${tokens}</span>${s.error ? ' <span class="err">error</span>' : ''}</summary>
  ${s.input ? `<h4>Input</h4>${payloadHtml(s.input)}` : ''}${s.output ? `<h4>Output</h4>${payloadHtml(s.output)}` : ''}${s.error ? `<h4>Error</h4><pre>${esc(s.error.message)}</pre>` : ''}
</details>`;
    return body + (children.get(s.span_id) ?? []).map((c) => renderSpan(c, depth + 1)).join('');
  };
  const m = trace.metrics;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Shared trace ${esc(trace.trace_id)} · Spyglass</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{background:#1d2330;color:#fff;padding:12px 24px}main{max-width:1100px;margin:0 auto;padding:16px 24px}
.card{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:12px 16px;margin:12px 0}
pre{white-space:pre-wrap;word-break:break-word;background:#f3f4f6;padding:8px;border-radius:6px;margin:4px 0}
.metrics span{margin-right:18px}.span{border-left:2px solid #c9d1dc;padding:2px 8px;margin:4px 0;background:#fff}
.type{font:12px monospace;background:#e8edf5;border-radius:4px;padding:1px 5px}.model{color:#5b3fc4}.dim{color:#6b7280}
.err{color:#b42318;font-weight:600}.msg{margin:4px 0;white-space:pre-wrap}h4{margin:8px 0 2px}
</style></head>
<body><header><b>Spyglass</b> · shared trace</header><main>
<h1 style="font-size:18px;word-break:break-all">Trace ${esc(trace.trace_id)}</h1>
<div class="card metrics"><span>Started ${esc(new Date(trace.timestamps.started_at).toISOString())}</span><span>Duration ${esc(m.total_time_ms ?? 0)} ms</span><span>Tokens ${esc(m.prompt_tokens ?? 0)} → ${esc(m.completion_tokens ?? 0)}</span>${m.total_cost != null ? `<span>Cost $${esc(m.total_cost.toFixed(6))}</span>` : ''}${trace.error ? `<span class="err">Error: ${esc(trace.error.message)}</span>` : ''}</div>
<div class="card"><h3>Input</h3><pre id="trace-input">${esc(trace.input.value)}</pre><h3>Output</h3><pre id="trace-output">${esc(trace.output.value)}</pre></div>
<div class="card"><h3>Spans (${trace.spans.length})</h3>${(children.get(null) ?? []).map((s) => renderSpan(s, 0)).join('')}</div>
</main></body></html>`;
}

export function renderNotSharedPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not shared · Spyglass</title></head>
<body style="font:14px system-ui;margin:40px"><h1>This trace is not shared</h1><p>The link is wrong, or its owner withdrew it.</p></body></html>`;
}
