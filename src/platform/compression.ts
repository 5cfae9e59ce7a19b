import { constants } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';

/** Answers smaller than this go as they are: the encoding's headers and CPU would cost more than they save. */
export const COMPRESS_THRESHOLD_BYTES = 1024;
/**
 * Brotli quality and gzip level: the lowest settings that still shrink JSON by ~10x
 * (README: Performance, compression), so a large answer costs little CPU.
 */
export const BROTLI_QUALITY = 4;
export const GZIP_LEVEL = 1;

/**
 * Answers of 1 KiB or more with a compressible type (JSON, text, HTML; not protobuf, not
 * event streams) are compressed when the client's Accept-Encoding allows it, brotli before
 * gzip. Streamed answers (a trace's detail) are compressed as they are read, with the same
 * backpressure: zlib's buffers fill, the source stops being read. An answer already encoded
 * (the web app's precompressed assets), a partial one (206), a HEAD or a client that accepts
 * only identity gets today's bytes. Must be registered before the routes (it attaches to
 * each route as it is added), and its hook runs after the app's own onSend hooks, which thus
 * still see a streamed answer's own stream.
 */
export async function installCompression(http: FastifyInstance): Promise<void> {
  await http.register(compress, {
    global: true,
    threshold: COMPRESS_THRESHOLD_BYTES,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } },
    zlibOptions: { level: GZIP_LEVEL },
    // Request bodies: ingest routes decode their own gzip (and refuse what they cannot read).
    globalDecompression: false,
  });
}
