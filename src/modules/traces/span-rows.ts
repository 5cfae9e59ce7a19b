/**
 * Spans as rows of the spans table, and the form in which they wait for their ingest
 * transaction. Made on the OTLP decode worker for OTLP trace requests (ingest/otlp-decode-worker.ts),
 * on the main thread for the collector and prompts; nothing here touches the database.
 */
import { jsonParam } from '../../db/json-param.ts';
import { computeCost, estimateCompletionTokens, estimateMessagesTokens, estimateTokens, canonicalModelName, providerPrefix } from './costs/index.ts';
import type { NormalizedSpan, SpanPayload } from './ingest/types.ts';
import { payloadText, type SpanFacts } from './summary.ts';

const MAX_SPAN_TEXT = 64 * 1024;

/** A span row without its payload (`data`): what the trace summaries are computed from. */
/** A span ready for the spans table: the summary's facts plus the full payload. */
export interface SpanRow extends Omit<SpanFacts, 'inserted_at' | 'updated_at'> {
  trace_id: string;
  name: string | null;
  /** The model's normalized name (lower case, provider prefix removed): what analytics group by. */
  model_name: string | null;
  vendor: string | null;
  data: Record<string, unknown>;
}

export type SpanRowFacts = Omit<SpanRow, 'data'>;

/** One span row, ready for upsertSpans: its facts, and the whole row as JSON text. */
export interface PreparedSpanRow {
  facts: SpanRowFacts;
  json: string;
}

/**
 * The span rows of one ingest request as they wait for their transaction: three flat values
 * instead of a graph of objects per span. Spans wait seconds under load; long strings live
 * in V8's large-object space, which scavenges never copy, so the main thread's garbage
 * collector pays next to nothing for them (docs/operating.md: Overload). They also cross from the
 * decode worker to the main thread as two string copies and one transferred buffer.
 */
export interface PreparedRows {
  /** The rows' JSON texts joined by commas, in order. */
  json: string;
  /** Where each row's text ends in `json` (the next starts one character later). */
  ends: Uint32Array;
  /** The rows' facts, as one JSON array text in the same order. */
  facts: string;
}

/**
 * The rows of one piece as they wait for their transaction: joined (above), as the decode
 * worker hands them over, or one by one, as the main thread makes them when it redacts a
 * piece. Joining those would copy every row into one string of hundreds of kilobytes (and
 * their facts into another) for the transaction to split again; a string that size takes
 * memory of its own from the system, which costs more than the copy on machines that hand
 * freed memory back (docs/performance.md: Privacy at ingest: redacted rows no longer joined on the
 * main thread).
 */
export type RowPiece = PreparedRows | readonly PreparedSpanRow[];

/** How many rows a piece holds. */
export function rowCount(piece: RowPiece): number {
  return isSeparate(piece) ? piece.length : piece.ends.length;
}

function isSeparate(piece: RowPiece): piece is readonly PreparedSpanRow[] {
  return Array.isArray(piece);
}

export function prepareSpanRow(row: SpanRow): PreparedSpanRow {
  const { data: _data, ...facts } = row;
  return { facts, json: jsonParam(row) };
}

/** The full row back (spans that log events are merged into: rare). */
export function unprepareSpanRow(row: PreparedSpanRow): SpanRow {
  return JSON.parse(row.json) as SpanRow;
}

export function joinRows(rows: readonly PreparedSpanRow[]): PreparedRows {
  const ends = new Uint32Array(rows.length);
  let at = -1;
  for (let i = 0; i < rows.length; i++) ends[i] = at += rows[i].json.length + 1;
  return { json: rows.map((r) => r.json).join(','), ends, facts: JSON.stringify(rows.map((r) => r.facts)) };
}

/** Spans per piece (below): what a PGlite transaction takes while reads come in. */
export const INGEST_PIECE_SPANS = 250;

/**
 * The rows of one request in pieces of at most `maxSpans` (whole traces together where a
 * trace fits), each its own submission to the group commit: a transaction takes whole pieces,
 * so on PGlite, where a read waits for the transaction in progress, one can be kept short
 * while reads come in (docs/operating.md: Overload). A trace's summary stays right across pieces: each
 * transaction merges the spans already stored.
 */
export function joinRowsInPieces(rows: readonly PreparedSpanRow[], maxSpans = INGEST_PIECE_SPANS): PreparedRows[] {
  return rowsInPieces(rows, maxSpans).map(joinRows);
}

/** The rows in pieces as joinRowsInPieces makes them, each left one by one (RowPiece). */
export function rowsInPieces(rows: readonly PreparedSpanRow[], maxSpans = INGEST_PIECE_SPANS): (readonly PreparedSpanRow[])[] {
  if (rows.length <= maxSpans) return [rows];
  const byTrace = new Map<string, PreparedSpanRow[]>();
  for (const r of rows) {
    const trace = byTrace.get(r.facts.trace_id);
    if (trace) trace.push(r);
    else byTrace.set(r.facts.trace_id, [r]);
  }
  const pieces: (readonly PreparedSpanRow[])[] = [];
  let piece: PreparedSpanRow[] = [];
  for (const trace of byTrace.values()) {
    if (piece.length > 0 && piece.length + trace.length > maxSpans) {
      pieces.push(piece);
      piece = [];
    }
    // A trace larger than a piece goes in runs of maxSpans.
    for (let i = 0; i < trace.length; i += maxSpans) {
      const run = trace.slice(i, i + maxSpans);
      if (piece.length + run.length > maxSpans) {
        pieces.push(piece);
        piece = [];
      }
      piece.push(...run);
    }
  }
  if (piece.length > 0) pieces.push(piece);
  return pieces;
}

/** The rows one by one (again, when they were joined), when their transaction is about to be written. */
export function splitRows(prepared: RowPiece): readonly PreparedSpanRow[] {
  if (isSeparate(prepared)) return prepared;
  const facts = JSON.parse(prepared.facts) as SpanRowFacts[];
  const { json, ends } = prepared;
  const out = new Array<PreparedSpanRow>(ends.length);
  for (let i = 0, start = 0; i < ends.length; start = ends[i++] + 1) out[i] = { facts: facts[i], json: json.slice(start, ends[i]) };
  return out;
}

/** A normalized span as a row of the spans table: priced, its token counts estimated where missing, texts clipped. */
export function toSpanRow(s: NormalizedSpan): SpanRow {
  const vendor = s.vendor ?? providerPrefix(s.model);
  const { prompt_tokens: promptTokens, completion_tokens: completionTokens, tokens_estimated: estimated, cost } = pricedMetrics(s, vendor);
  return {
    trace_id: s.trace_id,
    span_id: s.span_id,
    parent_id: s.parent_id,
    name: s.name,
    type: s.type,
    model: s.model,
    model_name: canonicalModelName(s.model),
    vendor,
    started_at: Math.round(s.started_at),
    finished_at: Math.round(s.finished_at),
    first_token_at: s.first_token_at === null ? null : Math.round(s.first_token_at),
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    cached_input_tokens: s.metrics.cached_input_tokens,
    reasoning_tokens: s.metrics.reasoning_tokens,
    tokens_estimated: estimated,
    cost,
    has_error: s.error !== null,
    error: s.error,
    input_text: clipSpanText(payloadText(s.input, 'input')),
    output_text: clipSpanText(payloadText(s.output, 'output')),
    trace_meta: s.trace_metadata,
    // Exactly the span's API fields beyond the columns: the detail joins this text as it is.
    data: {
      params: s.params,
      input: s.input,
      output: s.output,
      ...(s.contexts ? { contexts: s.contexts } : {}),
      attributes: s.attributes,
      resource: s.resource,
      events: s.events,
      links: s.links,
      status: s.status,
      kind: s.kind,
      scope: s.scope,
    },
  };
}

/** A span's input or output text as the summary keeps it: its first 64 KiB. */
export function clipSpanText(t: string | null): string | null {
  return t && t.length > MAX_SPAN_TEXT ? t.slice(0, MAX_SPAN_TEXT) : t;
}

/**
 * Token counts and cost of a span. Counts the SDK did not report are estimated with a real
 * tokenizer (and flagged) on LLM spans, except for a failed call that reported no usage at
 * all: the provider billed nothing for it, so it gets no counts and no cost.
 */
function pricedMetrics(s: NormalizedSpan, vendor: string | null) {
  let promptTokens = s.metrics.prompt_tokens;
  let completionTokens = s.metrics.completion_tokens;
  let estimated = s.metrics.tokens_estimated;
  const failedWithoutUsage = s.error !== null && promptTokens === null && completionTokens === null;
  if (s.type === 'llm' && !failedWithoutUsage) {
    if (promptTokens === null && s.input) {
      promptTokens = estimatePayload(s.input, s.model, 'prompt');
      estimated = true;
    }
    if (completionTokens === null && s.output) {
      completionTokens = estimatePayload(s.output, s.model, 'completion');
      estimated = true;
    }
  }
  const cost =
    s.metrics.cost ??
    (s.model && (promptTokens !== null || completionTokens !== null)
      ? computeCost({
          model: s.model,
          vendor,
          promptTokens,
          completionTokens,
          cachedInputTokens: s.metrics.cached_input_tokens,
          reasoningTokens: s.metrics.reasoning_tokens,
        })?.amount ?? null
      : null);
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, tokens_estimated: estimated, cost };
}

/** Tokens of a payload as the provider bills them: chat framing on the prompt side only. */
function estimatePayload(p: SpanPayload, model: string | null, side: 'prompt' | 'completion'): number {
  if (p.type === 'chat_messages') {
    const messages = p.value.map((m) => ({
      role: m.role,
      content: typeof m.content === 'string' || Array.isArray(m.content) ? (m.content as never) : m.tool_calls ? JSON.stringify(m.tool_calls) : null,
    }));
    return side === 'prompt' ? estimateMessagesTokens(messages, model) : estimateCompletionTokens(messages, model);
  }
  return estimateTokens(typeof p.value === 'string' ? p.value : JSON.stringify(p.value), model);
}
