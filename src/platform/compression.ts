import { constants } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';

/** Answers smaller than this go as they are: the encoding's headers and CPU would cost more than they save. */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/**
 * Levels from bench/compression.ts (BENCH_ONLY=compression) on the outline of a 10,000-span
 * trace (2.8 MiB): gzip level 1 shrinks it 30x, levels 3-6 no further; brotli quality 4 54x,
 * quality 5 a quarter smaller again for about 1.5x the CPU. At these levels the server's CPU
 * per answer moves within the noise (130-270 ms for the outline, 15-30 ms for a search page).
 * A 1 MiB window (LGWIN 20, default 4 MiB) keeps a compressing stream near 1 MiB of memory.
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
