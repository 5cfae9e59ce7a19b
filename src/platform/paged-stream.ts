import { Readable } from 'node:stream';

/** Where the pages of a streamed answer come from: the next page (null after the last), and what to release. */
export interface PageSource {
  next(): Promise<string | null>;
  /** Called exactly once: after the last page, on an error, or when the client goes away mid-stream. */
  close(): Promise<void>;
}

/**
 * Emitted with `true` when the stream starts reading pages from its source and `false` when
 * it stops (the client has not taken what it got, or the answer ended): while `false` the
 * answer waits on the client, not on the database (app.ts counts reads with it).
 */
export const PAGED_STREAM_SOURCING = 'sourcing';

/**
 * A text answer written as `head`, the pages in order, then `tail`, read from `source` only
 * as fast as the client takes it (backpressure): a big answer is never held whole. The
 * source is closed when the answer ends, fails or is abandoned (Fastify destroys the stream
 * when the client disconnects).
 *
 * `hurryAfterMs`: a source that holds something shared (a pooled database connection) should
 * not be held by a slow client for ever; past this time the remaining pages are read without
 * waiting for the client (buffered, as a whole answer would be) and the source is closed.
 */
export function pagedStream(head: string, source: PageSource, tail: string, options: { hurryAfterMs?: number } = {}): Readable {
  const started = performance.now();
  let reading = false;
  let closed: Promise<void> | null = null;
  // A client that stops reading never asks for more: the deadline itself reads the rest.
  const deadline = options.hurryAfterMs === undefined ? null : setTimeout(() => reading || stream.destroyed || void pump(), options.hurryAfterMs).unref();
  const close = () => {
    if (deadline) clearTimeout(deadline);
    return (closed ??= source.close());
  };
  const stream = new Readable({
    read() {
      if (!reading) void pump();
    },
    destroy(err, callback) {
      // A page being read finishes first (pump checks `destroyed` after each await).
      close().then(
        () => callback(err),
        (closeErr: Error) => callback(err ?? closeErr),
      );
    },
  });
  stream.push(head);
  const hurried = () => options.hurryAfterMs !== undefined && performance.now() - started > options.hurryAfterMs;
  async function pump() {
    if (closed) return;
    reading = true;
    stream.emit(PAGED_STREAM_SOURCING, true);
    try {
      for (;;) {
        const page = await source.next();
        if (stream.destroyed) return;
        if (page === null) {
          await close();
          if (stream.destroyed) return;
          stream.push(tail);
          stream.push(null);
          return;
        }
        if (!stream.push(page) && !hurried()) return;
      }
    } catch (err) {
      stream.destroy(err as Error);
    } finally {
      reading = false;
      stream.emit(PAGED_STREAM_SOURCING, false);
    }
  }
  return stream;
}
