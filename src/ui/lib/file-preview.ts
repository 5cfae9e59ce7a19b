/**
 * A file's first rows, read in the browser before anything is sent: the upload dialog shows
 * them with the column mapping. CSV as the server reads it (RFC 4180, first row the header,
 * BOM and blank lines skipped); JSON (an array of objects); JSONL (one object per line).
 */
export interface FilePreview {
  format: 'csv' | 'json' | 'jsonl';
  columns: string[];
  rows: Record<string, unknown>[];
}

const PREVIEW_BYTES = 512 * 1024;
/** A .json file is an array: read whole up to this size; beyond, its first objects are cut out of the start. */
const JSON_WHOLE_MAX = 30 * 1024 * 1024;

export function formatOfName(name: string): FilePreview['format'] | null {
  const ext = name.toLowerCase().split('.').pop();
  return ext === 'csv' || ext === 'json' || ext === 'jsonl' ? ext : null;
}

/** RFC 4180 rows of `text`; the last row is dropped when `partial` (it may be cut). */
export function parseCsv(text: string, partial: boolean, maxRows = Infinity): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRow = () => {
    row.push(cell);
    cell = '';
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
  };
  for (; i < text.length && rows.length < maxRows; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRow();
    } else cell += ch;
  }
  if (!partial && rows.length < maxRows && (cell !== '' || row.length)) endRow();
  return rows;
}

/** Parses pasted spreadsheet cells (tab-separated, quoted cells may hold tabs and line breaks). */
export function parseTsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else cell += ch;
    } else if (ch === '"' && cell === '') quoted = true;
    else if (ch === '\t') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      cell = '';
      rows.push(row);
      row = [];
    } else cell += ch;
  }
  if (cell !== '' || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

export async function previewFile(file: File, maxRows = 10): Promise<FilePreview> {
  const format = formatOfName(file.name);
  if (!format) throw new Error('Choose a .csv, .json or .jsonl file');
  const partial = file.size > PREVIEW_BYTES;
  if (format === 'csv') {
    const text = await file.slice(0, PREVIEW_BYTES).text();
    const [header, ...data] = parseCsv(text, partial, maxRows + 1);
    if (!header) throw new Error('The file is empty');
    return { format, columns: header, rows: data.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? '']))) };
  }
  let objects: Record<string, unknown>[];
  if (format === 'jsonl') {
    const text = await file.slice(0, PREVIEW_BYTES).text();
    const lines = text.split(/\r?\n/);
    if (partial) lines.pop();
    const nonBlank = lines.filter((l) => l.trim());
    if (nonBlank.length && nonBlank[0].trim().startsWith('[') && !partial) objects = JSON.parse(text) as Record<string, unknown>[];
    else objects = nonBlank.slice(0, maxRows).map((l, i) => parseObject(l, `line ${i + 1}`));
  } else if (file.size <= JSON_WHOLE_MAX) {
    const parsed = JSON.parse(await file.text()) as unknown;
    if (!Array.isArray(parsed)) throw new Error('A .json file must hold an array of objects');
    objects = parsed.slice(0, maxRows) as Record<string, unknown>[];
  } else {
    objects = firstObjects(await file.slice(0, PREVIEW_BYTES).text(), maxRows);
  }
  const columns: string[] = [];
  for (const o of objects) for (const k of Object.keys(o)) if (!columns.includes(k)) columns.push(k);
  return { format, columns, rows: objects.slice(0, maxRows) };
}

function parseObject(line: string, where: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new Error(`The file's ${where} is not JSON`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`The file's ${where} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** The first complete objects of a JSON array's beginning. */
function firstObjects(text: string, max: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = text.indexOf('[') + 1; i > 0 && i < text.length && out.length < max; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') {
      if (depth++ === 0) start = i;
    } else if (ch === '}' && --depth === 0) out.push(parseObject(text.slice(start, i + 1), `element ${out.length + 1}`));
  }
  return out;
}

/** A type for a column from its first values: number or boolean when every non-empty one is, else string (JSON values keep theirs). */
export function guessType(values: unknown[]): 'string' | 'number' | 'boolean' | 'json' | 'list' {
  const present = values.filter((v) => v !== null && v !== undefined && v !== '');
  if (!present.length) return 'string';
  if (present.every((v) => Array.isArray(v))) return 'list';
  if (present.every((v) => typeof v === 'object')) return 'json';
  if (present.every((v) => typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))))) return 'number';
  if (present.every((v) => typeof v === 'boolean' || (typeof v === 'string' && /^(true|false)$/i.test(v)))) return 'boolean';
  return 'string';
}
