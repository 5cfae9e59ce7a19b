import { TextDecoder } from 'node:util';
import { AppError, badRequest } from '../../platform/errors.ts';
import { CsvError, CsvReader } from './csv.ts';

/**
 * Rows of an uploaded file, read as its bytes arrive (push `write`, then `end`): the encoding
 * found from the first bytes (UTF-8, or UTF-16 with a byte-order mark), then CSV, a JSON
 * array or JSON lines. Every row goes to the sink with the line it starts on; every refusal
 * is a 400 naming the line, and the row and column where there is one.
 */
export type FileFormat = 'csv' | 'json' | 'jsonl';

export interface FileRow {
  /** 1-based data row (the CSV header is not one). */
  row: number;
  line: number;
  values: Record<string, unknown>;
}

/** A cell (a CSV field, a top-level JSON value) of at most this many characters (docs/datasets.md). */
export const MAX_CELL_CHARS = 1024 * 1024;
const MAX_FILE_COLUMNS = 1_000;

export function formatOf(filename: string | null): FileFormat {
  const ext = /\.([^.]+)$/.exec(filename ?? '')?.[1]?.toLowerCase();
  if (ext === 'csv' || ext === 'json' || ext === 'jsonl') return ext;
  throw badRequest(
    'validation_error',
    `file: the filename "${filename ?? ''}" must end in .csv, .json (an array of objects) or .jsonl (one object per line)`,
    'file',
  );
}

const fileError = (message: string, where: { line?: number; row?: number; column?: string } = {}) =>
  new AppError(400, 'validation_error', `file: ${message}`, { field: 'file', meta: { ...where } });

const at = (line: number, row?: number, column?: string) =>
  `line ${line}${row !== undefined ? ` (row ${row})` : ''}${column !== undefined ? `, column "${column}"` : ''}`;

const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ESCAPED_UNSTORABLE = /\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

/** U+0000 and lone surrogates are removed from uploaded files (spec, rule 7): PostgreSQL stores neither. */
function cleanValue(v: unknown): unknown {
  if (typeof v === 'string') return v.replace(UNSTORABLE, '');
  if (Array.isArray(v)) return v.map(cleanValue);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k.replace(UNSTORABLE, '')] = cleanValue(x);
    return out;
  }
  return v;
}

export class FileRowReader {
  /** The file's columns: the CSV header, or the keys of the first JSON object. */
  columns: string[] | null = null;
  private rows = 0;
  private decoder: TextDecoder | null = null;
  private head: Buffer | null = Buffer.alloc(0);
  private lines = 1;
  private bytes = 0;
  private readonly csv = new CsvReader();
  private pendingLine = '';
  private arrayMode: boolean;
  private readonly array = new JsonArraySplitter();

  constructor(
    private readonly format: FileFormat,
    private readonly sink: (row: FileRow) => void,
  ) {
    this.arrayMode = format === 'json';
  }

  write(chunk: Buffer): void {
    if (this.head) {
      // The byte-order mark needs the first 4 bytes.
      this.head = Buffer.concat([this.head, chunk]);
      if (this.head.length < 4) return;
      chunk = this.head;
      this.head = null;
      chunk = this.detect(chunk);
    }
    this.decode(chunk, true);
  }

  end(): void {
    if (this.head) {
      const rest = this.head;
      this.head = null;
      this.decode(this.detect(rest), true);
    }
    this.decode(Buffer.alloc(0), false);
    try {
      if (this.format === 'csv') this.csv.end((cells, line) => this.csvRow(cells, line));
      else if (this.arrayMode) this.array.end();
      else {
        this.jsonLine(this.pendingLine, this.lines);
        if (this.arrayMode) this.array.end();
      }
    } catch (err) {
      throw this.wrap(err);
    }
    if (this.columns === null) throw fileError(this.format === 'csv' ? 'the file is empty: a CSV file starts with a header row' : 'the file holds no object');
    if (this.rows === 0) throw fileError('the file has no data rows');
  }

  private detect(b: Buffer): Buffer {
    if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) {
      this.decoder = new TextDecoder('utf-8', { fatal: true });
      return b.subarray(3);
    }
    if (b[0] === 0xff && b[1] === 0xfe) {
      this.decoder = new TextDecoder('utf-16le');
      return b.subarray(2);
    }
    if (b[0] === 0xfe && b[1] === 0xff) {
      this.decoder = new TextDecoder('utf-16be');
      return b.subarray(2);
    }
    // UTF-16 without a mark is valid UTF-8 full of NUL bytes: refused rather than misread.
    const sample = b.subarray(0, 1024);
    let zeros = 0;
    for (const x of sample) if (x === 0) zeros++;
    if (sample.length >= 4 && zeros * 4 >= sample.length) {
      throw fileError('the file looks like UTF-16 without a byte-order mark; save it as UTF-8 (or UTF-16 with a byte-order mark)', { line: 1 });
    }
    this.decoder = new TextDecoder('utf-8', { fatal: true });
    return b;
  }

  private decode(chunk: Buffer, stream: boolean): void {
    if (!this.decoder) return;
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream });
    } catch {
      // Where: the lines before the first invalid byte of this chunk.
      const bad = firstInvalidUtf8(chunk);
      const before = Buffer.from(chunk.subarray(0, bad)).toString('utf8');
      let line = this.lines;
      if (this.format === 'csv') for (let k = before.indexOf('\n'); k >= 0; k = before.indexOf('\n', k + 1)) line++;
      throw fileError(
        `the file is not UTF-8: invalid bytes at byte ${this.bytes + bad + 1}, ${at(line)}; save it as UTF-8 (or UTF-16 with a byte-order mark) and upload again`,
        { line },
      );
    }
    this.bytes += chunk.length;
    if (!text) return;
    if (text.includes('\u0000')) text = text.split('\u0000').join('');
    try {
      if (this.format === 'csv') {
        this.csv.push(text, (cells, line) => this.csvRow(cells, line));
        this.countLines(text);
      } else this.jsonText(text);
    } catch (err) {
      throw this.wrap(err);
    }
  }

  private countLines(text: string) {
    for (let k = text.indexOf('\n'); k >= 0; k = text.indexOf('\n', k + 1)) this.lines++;
  }

  private wrap(err: unknown): unknown {
    if (err instanceof CsvError) return fileError(err.message, { line: err.line });
    return err;
  }

  private csvRow(cells: string[], line: number): void {
    if (this.columns === null) {
      if (cells.length > MAX_FILE_COLUMNS) throw fileError(`${at(line)}: the header has ${cells.length} columns; at most ${MAX_FILE_COLUMNS}`, { line });
      const seen = new Map<string, number>();
      cells.forEach((name, i) => {
        if (!name.trim()) throw fileError(`${at(line)}: header cell ${i + 1} is blank; every column needs a name`, { line, column: String(i + 1) });
        const first = seen.get(name);
        if (first !== undefined) throw fileError(`${at(line)}: header cells ${first + 1} and ${i + 1} are both named "${name}"`, { line, column: name });
        seen.set(name, i);
      });
      this.columns = cells;
      return;
    }
    const row = ++this.rows;
    if (cells.length !== this.columns.length) {
      throw fileError(`${at(line, row)}: ${cells.length} cells where the header has ${this.columns.length}`, { line, row });
    }
    const values: Record<string, unknown> = {};
    for (let i = 0; i < cells.length; i++) {
      const column = this.columns[i];
      if (cells[i].length > MAX_CELL_CHARS) throw this.tooLong(line, row, column, cells[i].length);
      values[column] = cells[i];
    }
    this.sink({ row, line, values });
  }

  private tooLong(line: number, row: number, column: string, length: number) {
    return fileError(`${at(line, row, column)}: a cell of ${length} characters; at most ${MAX_CELL_CHARS}`, { line, row, column });
  }

  private jsonText(text: string): void {
    if (this.arrayMode) {
      this.array.push(text, (element, line) => this.jsonElement(element, line));
      return;
    }
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      const line = this.pendingLine + text.slice(start, nl);
      this.pendingLine = '';
      start = nl + 1;
      this.jsonLine(line, this.lines);
      this.lines++;
      if (this.arrayMode) {
        this.array.push(text.slice(start), (element, l) => this.jsonElement(element, l));
        return;
      }
    }
    this.pendingLine += text.slice(start);
    if (this.pendingLine.length > MAX_CELL_CHARS * 4) {
      throw fileError(`${at(this.lines, this.rows + 1)}: a line longer than ${MAX_CELL_CHARS * 4} characters`, { line: this.lines, row: this.rows + 1 });
    }
  }

  private jsonLine(text: string, line: number): void {
    const trimmed = text.trim();
    if (!trimmed) return;
    if (this.rows === 0 && this.columns === null && trimmed.startsWith('[')) {
      // A .jsonl file holding one JSON array is read as the array it is.
      this.arrayMode = true;
      this.array.startAt(line);
      this.array.push(text + '\n', (element, l) => this.jsonElement(element, l));
      return;
    }
    this.jsonElement(trimmed, line);
  }

  private jsonElement(text: string, line: number): void {
    const row = this.rows + 1;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw fileError(`${at(line, row)}: not valid JSON (${(err as Error).message.split('\n')[0].slice(0, 120)})`, { line, row });
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
      throw fileError(`${at(line, row)}: ${what} where an object is expected`, { line, row });
    }
    if (ESCAPED_UNSTORABLE.test(text)) value = cleanValue(value);
    const values = value as Record<string, unknown>;
    if (this.columns === null) {
      const keys = Object.keys(values);
      if (!keys.length) throw fileError(`${at(line, row)}: the first object has no keys, so the file has no columns`, { line, row });
      if (keys.length > MAX_FILE_COLUMNS) throw fileError(`${at(line, row)}: ${keys.length} keys; at most ${MAX_FILE_COLUMNS} columns`, { line, row });
      this.columns = keys;
    }
    for (const [key, v] of Object.entries(values)) {
      if (!this.columns.includes(key)) {
        throw new AppError(
          400,
          'invalid_column',
          `file: ${at(line, row)}: the key "${key}" is not one of the file's columns (the keys of its first object: ${this.columns.map((c) => `"${c}"`).join(', ')})`,
          { field: 'file', meta: { line, row, column: key } },
        );
      }
      const length = typeof v === 'string' ? v.length : v !== null && typeof v === 'object' ? JSON.stringify(v).length : 0;
      if (length > MAX_CELL_CHARS) throw this.tooLong(line, row, key, length);
    }
    this.rows = row;
    this.sink({ row, line, values });
  }
}

/**
 * Splits a JSON array arriving in pieces into its top-level elements (as text, with the line
 * each starts on), so that each is parsed alone and an error names its line.
 */
class JsonArraySplitter {
  private state: 'before' | 'inArray' | 'after' = 'before';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private element = '';
  private elementLine = 0;
  private line = 1;
  private expectValue = true;

  startAt(line: number) {
    this.line = line;
  }

  push(text: string, sink: (element: string, line: number) => void): void {
    let start = -1;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '\n') this.line++;
      if (this.state === 'before') {
        if (c === '[') this.state = 'inArray';
        else if (!/\s/.test(c)) throw fileError(`${at(this.line)}: a .json file holds an array of objects, and this one starts with "${c}"`, { line: this.line });
        continue;
      }
      if (this.state === 'after') {
        if (!/\s/.test(c)) throw fileError(`${at(this.line)}: text after the end of the array`, { line: this.line });
        continue;
      }
      if (this.depth === 0) {
        if (/\s/.test(c)) continue;
        if (c === ']') {
          if (this.expectValue && this.elementLine > 0) throw fileError(`${at(this.line)}: a comma before "]"`, { line: this.line });
          this.state = 'after';
          continue;
        }
        if (c === ',') {
          if (this.expectValue) throw fileError(`${at(this.line)}: a comma where an element is expected`, { line: this.line });
          this.expectValue = true;
          continue;
        }
        if (!this.expectValue) throw fileError(`${at(this.line)}: a comma is missing between two elements`, { line: this.line });
        if (c !== '{') {
          throw fileError(`${at(this.line, -1)}: an element of the array is not an object (it starts with "${c}")`.replace(' (row -1)', ''), { line: this.line });
        }
        this.depth = 1;
        this.elementLine = this.line;
        start = i;
        continue;
      }
      if (start < 0) start = i;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') this.inString = false;
      } else if (c === '"') this.inString = true;
      else if (c === '{' || c === '[') this.depth++;
      else if (c === '}' || c === ']') {
        this.depth--;
        if (this.depth === 0) {
          this.element += text.slice(start, i + 1);
          start = -1;
          const element = this.element;
          this.element = '';
          this.expectValue = false;
          sink(element, this.elementLine);
        }
      }
      if (this.element.length + (start >= 0 ? i - start : 0) > MAX_CELL_CHARS * 4) {
        throw fileError(`${at(this.elementLine)}: an element longer than ${MAX_CELL_CHARS * 4} characters`, { line: this.elementLine });
      }
    }
    if (start >= 0 && this.depth > 0) this.element += text.slice(start);
  }

  end(): void {
    if (this.state === 'before') throw fileError('the file holds no JSON array');
    if (this.state === 'inArray') {
      throw fileError(`${at(this.line)}: the file ends inside the array${this.depth > 0 ? ` (the element that starts on line ${this.elementLine} is not closed)` : ''}: is it cut off?`, {
        line: this.line,
      });
    }
  }
}

/** The offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(b: Buffer): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i];
    const n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (n === 0) return i;
    for (let k = 1; k < n; k++) {
      if (i + k >= b.length) return i;
      if ((b[i + k] & 0xc0) !== 0x80) return i;
    }
    i += n;
  }
  return b.length;
}
