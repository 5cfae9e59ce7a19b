import { constants } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';

/** Answers smaller than this go as they are: the encoding's headers and CPU would cost more than they save. */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/**
 * Measured on the outline of a 10,000-span trace (2.8 MiB) and the whole trace (10 MiB),
 * compressed page by page (bench/compression.ts and README: Performance, compression):
 * gzip level 1 gives 31x for 6 ms of CPU, levels 4-6 no smaller for more; brotli quality 4
 * gives 54x for 22 ms, quality 5 costs twice that. A 1 MiB window (LGWIN 20, default 4 MiB)
 * keeps a compressing stream's memory near 1 MiB for a few percent of size.
 *
 * Every write is flushed: a streamed answer's pages then go out compressed as each is read
 * (brotli otherwise holds the whole outline before its first byte). Pages are large
 * (hundreds of KiB), so this costs under 3% of size; an answer built whole is one write.
 */
const brotliOptions = {
  flush: constants.BROTLI_OPERATION_FLUSH,
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 4,
    [constants.BROTLI_PARAM_LGWIN]: 20,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
  },
};
const gzipOptions = { level: 1, flush: constants.Z_SYNC_FLUSH };

/**
 * Answers of 1 KiB or more with a compressible type (JSON, text, HTML; not protobuf, not
 * event streams) are compressed when the client's Accept-Encoding allows it, brotli before
 * gzip. Streamed answers (a trace's detail) are compressed as they are read, with the same
 * backpressure: zlib's buffers fill, the source stops being read. An answer already encoded
 * (the web app's precompressed assets), a partial one (206), a HEAD or a client that accepts
 * only identity gets today's bytes. Must be registered before the routes (it attaches to
 * each route as it is added); its hook runs after the app's own onSend hooks, which thus
 * still see a streamed answer's own stream (reads in progress, app.ts).
 */
export async function installCompression(http: FastifyInstance): Promise<void> {
  await http.register(compress, {
    global: true,
    threshold: COMPRESS_THRESHOLD_BYTES,
    encodings: ['br', 'gzip'],
    brotliOptions,
    zlibOptions: gzipOptions,
    // Request bodies: ingest routes decode their own gzip (and refuse what they cannot read).
    globalDecompression: false,
  });
}
