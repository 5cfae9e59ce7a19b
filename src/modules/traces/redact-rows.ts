/**
 * Privacy at ingest on the traces side: which parts of a span row hold what an application
 * sent, and the row again with them redacted. The privacy module decides what is personal
 * data (TraceExtension.redactor); this file only knows the row's shape.
 */
import type { SpanPayload } from './ingest/types.ts';
import type { ValueRedactor } from './context.ts';
import { mapInTurns } from '../../platform/turns.ts';
import { clipSpanText, prepareSpanRow, type PreparedRows, type RowPiece, type SpanRow, type SpanRowFacts } from './span-rows.ts';
import { payloadText } from './summary.ts';

/** The parts of a row's `data` that hold what an application sent, with the field each is counted under. */
const DATA_FIELDS = [
  ['params', 'params'],
  ['attributes', 'attributes'],
  ['resource', 'resource'],
  ['events', 'events'],
  ['links', 'links'],
  ['status', 'status'],
] as const;

/**
 * The row with every text an application sent redacted, and `data.redactions` recording what
 * went (no values); the row itself (the same object) when nothing was found in it.
 */
export function redactSpanRow(row: SpanRow, r: ValueRedactor): SpanRow {
  const d = row.data as Record<string, unknown> & { input?: SpanPayload | null; output?: SpanPayload | null };
  const input = redactPayload(d.input ?? null, 'input', r);
  const output = redactPayload(d.output ?? null, 'output', r);
  let data: Record<string, unknown> | null = null;
  if (input !== (d.input ?? null)) (data ??= { ...d }).input = input;
  if (output !== (d.output ?? null)) (data ??= { ...d }).output = output;
  for (const [key, field] of DATA_FIELDS) {
    const v = d[key];
    const w = r.value(v, field);
    if (w !== v) (data ??= { ...d })[key] = w;
  }
  const error = r.value(row.error, 'error');
  const traceMeta = r.value(row.trace_meta, 'metadata');
  const counts = r.take();
  const found = Object.keys(counts).length > 0;
  // Nothing found, and no record of an earlier version to drop: the row as it came.
  if (!data && !found && error === row.error && traceMeta === row.trace_meta && d.redactions === undefined) return row;
  data ??= { ...d };
  // A span sent again keeps the record of its last version only, as it keeps its contents.
  if (found) data.redactions = counts;
  else delete data.redactions;
  return {
    ...row,
    error,
    trace_meta: traceMeta,
    input_text: input === (d.input ?? null) ? row.input_text : clipSpanText(payloadText(input, 'input')),
    output_text: output === (d.output ?? null) ? row.output_text : clipSpanText(payloadText(output, 'output')),
    data,
  };
}

/** Rows read per turn of the event loop before their texts are searched ahead. */
const PARSED_PER_TURN = 50;

/**
 * Rows as they wait for their transaction (JSON text), redacted: each row's text read once
 * (its facts are in it, so the piece's facts are not read), and a row written again only
 * when something in it was found. A piece none of whose rows held anything is kept as it
 * came; the others go on one by one (RowPiece).
 */
export async function redactPiece(piece: PreparedRows, r: ValueRedactor, perTurn: number): Promise<RowPiece> {
  const texts = new Array<string>(piece.ends.length);
  for (let i = 0, start = 0; i < texts.length; start = piece.ends[i++] + 1) texts[i] = piece.json.slice(start, piece.ends[i]);
  // The piece's texts searched ahead, all at once (privacy's detection workers), from the rows read once.
  let parsed: SpanRow[] | null = null;
  if (r.prepare) {
    const rows = await mapInTurns(texts, PARSED_PER_TURN, (json) => JSON.parse(json) as SpanRow);
    await r.prepare(() => {
      for (const row of rows) redactSpanRow(row, r);
    });
    parsed = rows;
  }
  let changed = false;
  let at = 0;
  const rows = await mapInTurns(texts, perTurn, (json) => {
    const row = parsed ? parsed[at++] : (JSON.parse(json) as SpanRow);
    const redacted = redactSpanRow(row, r);
    if (redacted === row) return { row, json };
    changed = true;
    return prepareSpanRow(redacted);
  });
  if (!changed) return piece;
  return rows.map((p) => ('row' in p ? { facts: factsOf(p.row), json: p.json } : p));
}

function factsOf(row: SpanRow): SpanRowFacts {
  const { data: _data, ...facts } = row;
  return facts;
}

function redactPayload(p: SpanPayload | null, field: string, r: ValueRedactor): SpanPayload | null {
  if (!p) return p;
  // Only the value: the payload's type is the server's word, not the application's.
  const value = r.value(p.value, field);
  return value === p.value ? p : ({ ...p, value } as SpanPayload);
}
