/**
 * Compressed OTLP bodies: what one may inflate to, known before inflating it (the main thread
 * admits that much against the process's budget, SPYGLASS_INGEST_QUEUE_BYTES), and inflating
 * it within that (on the decode worker).
 */
import zlib from 'node:zlib';
import { AppError } from '../../../platform/errors.ts';

/** What one OTLP request may decompress to (a decompression bomb is refused with 413). */
export const OTLP_DECOMPRESSED_LIMIT = 64 * 1024 * 1024;

/** zlib's largest inflation ratio: a deflate stream cannot inflate to more than this many times its size. */
const DEFLATE_MAX_RATIO = 1032;

/**
 * The most `body` can inflate to: the body itself when not compressed; a gzip stream's own
 * trailer (ISIZE; zlib checks it, and decompress refuses a stream that inflates to more); for
 * deflate, which does not say, zlib's largest ratio, within the limit. Past the limit a body
 * is refused at once with 413, nothing inflated.
 */
export function inflatedSizeBound(body: Uint8Array, encoding: string): number {
  const enc = encoding.trim().toLowerCase();
  if (enc === 'gzip' && body.byteLength >= 18) {
    const declared = Buffer.from(body.buffer, body.byteOffset, body.byteLength).readUInt32LE(body.byteLength - 4);
    if (declared > OTLP_DECOMPRESSED_LIMIT) throw tooLarge();
    return declared;
  }
  if (enc === 'deflate') return Math.min(body.byteLength * DEFLATE_MAX_RATIO, OTLP_DECOMPRESSED_LIMIT);
  return body.byteLength;
}

/** `body` inflated (gzip, deflate) or as it is (identity), at most `maxBytes` (inflatedSizeBound). */
export function decompress(body: Uint8Array, encoding: string, maxBytes: number): Buffer {
  const data = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const enc = encoding.trim().toLowerCase();
  if (enc === '' || enc === 'identity') return data;
  if (enc !== 'gzip' && enc !== 'deflate') {
    throw new AppError(415, 'unsupported_content_encoding', `content-encoding ${encoding} is not supported; use gzip, deflate or none`, { field: 'content-encoding' });
  }
  try {
    return (enc === 'gzip' ? zlib.gunzipSync : zlib.inflateSync)(data, { maxOutputLength: Math.max(1, Math.min(maxBytes, OTLP_DECOMPRESSED_LIMIT)) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
      if (enc === 'deflate') throw tooLarge();
      // The trailer said less than the stream holds: a forged trailer, or several gzip members in one body.
      throw new AppError(400, 'invalid_compression', `body: the gzip stream inflates to more than the ${maxBytes} bytes its trailer says (send one gzip member per body)`, { field: 'body' });
    }
    throw new AppError(400, 'invalid_compression', `body: the ${enc} stream is truncated or corrupt (${(err as Error).message})`, { field: 'body' });
  }
}

function tooLarge(): AppError {
  return new AppError(413, 'payload_too_large', `body: decompresses to more than ${OTLP_DECOMPRESSED_LIMIT} bytes`, { field: 'body' });
}
