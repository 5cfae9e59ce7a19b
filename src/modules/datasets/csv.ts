/**
 * A streaming RFC 4180 reader: text goes in chunk by chunk (a chunk may end anywhere, even
 * inside a quoted field or between \r and \n), rows come out with the line they start on.
 * Commas, doubled quotes and line breaks inside quoted fields; \n, \r\n and \r end rows;
 * blank lines are skipped. Lenient where spreadsheets are: a quote inside an unquoted field
 * is kept as text, and text after a closing quote joins the field.
 */
export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

const COMMA = 44;
const QUOTE = 34;
const CR = 13;
const LF = 10;

const enum State {
  FieldStart,
  Unquoted,
  Quoted,
  /** A quote inside a quoted field: doubled (a literal quote) or the closing one. */
  QuoteInQuoted,
}

export type RowSink = (cells: string[], line: number) => void;

export class CsvReader {
  private row: string[] = [];
  private field = '';
  private state = State.FieldStart;
  private skipLf = false;
  private quotedInRow = false;
  /** The line being read (1-based). */
  private line = 1;
  /** The line the current row started on. */
  private rowLine = 1;
  private quoteLine = 1;

  push(text: string, sink: RowSink): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (this.skipLf) {
        this.skipLf = false;
        if (c === LF) {
          i++;
          continue;
        }
      }
      switch (this.state) {
        case State.FieldStart:
          if (c === QUOTE) {
            this.state = State.Quoted;
            this.quotedInRow = true;
            this.quoteLine = this.line;
            i++;
          } else this.state = State.Unquoted;
          break;
        case State.Unquoted: {
          let j = i;
          while (j < n) {
            const d = text.charCodeAt(j);
            if (d === COMMA || d === CR || d === LF) break;
            j++;
          }
          this.field += text.slice(i, j);
          if (j === n) return;
          i = this.delimiter(text.charCodeAt(j), j, sink);
          break;
        }
        case State.Quoted: {
          const j = text.indexOf('"', i);
          const piece = j < 0 ? text.slice(i) : text.slice(i, j);
          this.field += piece;
          for (let k = piece.indexOf('\n'); k >= 0; k = piece.indexOf('\n', k + 1)) this.line++;
          if (j < 0) return;
          this.state = State.QuoteInQuoted;
          i = j + 1;
          break;
        }
        case State.QuoteInQuoted:
          if (c === QUOTE) {
            this.field += '"';
            this.state = State.Quoted;
            i++;
          } else if (c === COMMA || c === CR || c === LF) {
            i = this.delimiter(c, i, sink);
          } else this.state = State.Unquoted;
          break;
      }
    }
  }

  /** The text has ended: the last row (a quoted field still open means the file was cut off). */
  end(sink: RowSink): void {
    if (this.state === State.Quoted) {
      throw new CsvError(this.quoteLine, `line ${this.quoteLine}: a quoted field opens here and never closes (is the file cut off?)`);
    }
    if (this.state !== State.FieldStart || this.row.length > 0) this.endRow(sink);
  }

  /** A comma or line break at `at`: answers where reading goes on. */
  private delimiter(c: number, at: number, sink: RowSink): number {
    if (c === COMMA) {
      this.row.push(this.field);
      this.field = '';
      this.state = State.FieldStart;
      return at + 1;
    }
    this.endRow(sink);
    this.line++;
    this.rowLine = this.line;
    if (c === CR) this.skipLf = true;
    return at + 1;
  }

  private endRow(sink: RowSink): void {
    this.row.push(this.field);
    this.field = '';
    this.state = State.FieldStart;
    const row = this.row;
    this.row = [];
    const blank = row.length === 1 && row[0] === '' && !this.quotedInRow;
    this.quotedInRow = false;
    if (!blank) sink(row, this.rowLine);
  }
}
