import { AppError, badRequest } from '../../platform/errors.ts';

/**
 * A streaming multipart/form-data reader (RFC 7578), enough for the upload routes: parts
 * come out as they arrive, a part's content in chunks, never the whole body in memory.
 * Events: `part` (its headers read), then `data` chunks, then `end` of that part.
 */
export type MultipartEvent =
  | { type: 'part'; name: string; filename: string | null; contentType: string | null }
  | { type: 'data'; chunk: Buffer }
  | { type: 'end' };

const MAX_HEADER_BYTES = 16 * 1024;
const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

export function boundaryOf(contentType: string | undefined): string {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'multipart/form-data') {
    throw new AppError(400, 'validation_error', `content-type: expected multipart/form-data with the parts name and file, got ${contentType ?? '(none)'}`, {
      field: 'content-type',
    });
  }
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary || boundary.length > 200) throw badRequest('validation_error', 'content-type: multipart/form-data without a boundary parameter', 'content-type');
  return boundary;
}

function param(header: string, name: string): string | null {
  const m = new RegExp(`;\\s*${name}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(header);
  if (!m) return null;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2];
}

function parseHeaders(block: string): { name: string; filename: string | null; contentType: string | null } {
  let disposition = '';
  let contentType: string | null = null;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'content-disposition') disposition = value;
    else if (key === 'content-type') contentType = value;
  }
  if (!/^form-data\b/i.test(disposition)) throw badRequest('validation_error', 'multipart: a part has no Content-Disposition: form-data header', 'body');
  const name = param(disposition, 'name');
  if (name === null) throw badRequest('validation_error', 'multipart: a part has no name', 'body');
  let filename = param(disposition, 'filename');
  const extended = param(disposition, 'filename\\*');
  if (extended) {
    const m = /^[\w-]*'[\w-]*'(.*)$/.exec(extended);
    try {
      filename = decodeURIComponent(m ? m[1] : extended);
    } catch {
      /* keep the plain filename */
    }
  }
  return { name, filename, contentType };
}

export async function* readMultipart(body: AsyncIterable<Buffer | string>, boundary: string): AsyncGenerator<MultipartEvent> {
  // Every delimiter is CRLF--boundary once a CRLF is put before the body (the first one has none).
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let buf: Buffer = Buffer.from(CRLF);
  let state = 'preamble' as 'preamble' | 'afterDelimiter' | 'headers' | 'body' | 'done';
  let inPart = false;
  const feed = function* (): Generator<MultipartEvent> {
    for (;;) {
      if (state === 'preamble' || state === 'body') {
        const at = buf.indexOf(delimiter);
        if (at < 0) {
          // Keep what could be the start of a delimiter split across chunks.
          const keep = Math.min(buf.length, delimiter.length - 1);
          if (state === 'body' && buf.length > keep) yield { type: 'data', chunk: buf.subarray(0, buf.length - keep) };
          buf = buf.subarray(buf.length - keep);
          return;
        }
        if (state === 'body' && at > 0) yield { type: 'data', chunk: buf.subarray(0, at) };
        if (state === 'body') {
          yield { type: 'end' };
          inPart = false;
        }
        buf = buf.subarray(at + delimiter.length);
        state = 'afterDelimiter';
      } else if (state === 'afterDelimiter') {
        // "--" closes the body; otherwise optional whitespace, then CRLF and the next part.
        if (buf.length < 2) return;
        if (buf[0] === 0x2d && buf[1] === 0x2d) {
          state = 'done';
          return;
        }
        const eol = buf.indexOf(CRLF);
        if (eol < 0) {
          if (buf.length > 256) throw badRequest('validation_error', 'multipart: a boundary line is not followed by a line break', 'body');
          return;
        }
        buf = buf.subarray(eol + 2);
        state = 'headers';
      } else if (state === 'headers') {
        const end = buf.indexOf(HEADER_END);
        // Headers of a part with no header at all end at once.
        const empty = buf.length >= 2 && buf[0] === 0x0d && buf[1] === 0x0a;
        if (end < 0 && !empty) {
          if (buf.length > MAX_HEADER_BYTES) throw badRequest('validation_error', 'multipart: the headers of a part are longer than 16 KiB', 'body');
          return;
        }
        const block = empty ? '' : buf.subarray(0, end).toString('utf8');
        buf = buf.subarray(empty ? 2 : end + 4);
        yield { type: 'part', ...parseHeaders(block) };
        inPart = true;
        state = 'body';
      } else return;
    }
  };
  for await (const chunk of body) {
    if (state === 'done') continue; // the epilogue is ignored
    buf = buf.length ? Buffer.concat([buf, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]) : typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    yield* feed();
  }
  if (state !== 'done') {
    throw badRequest(
      'validation_error',
      inPart || state !== 'preamble'
        ? 'the upload ended before its closing multipart boundary: the body was cut off, and nothing was stored'
        : 'the body holds no multipart part (no boundary line was found)',
      'body',
    );
  }
}
