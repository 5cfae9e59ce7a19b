/**
 * Reads before writes. Whether read requests are in progress, or ended within `recentMs`
 * (`reading`): ingest then commits in fewer, shorter transactions, so the next read finds
 * the database and the main thread free sooner (a gap of 100 ms between two reads let a
 * 2,000-span PGlite transaction start, and the next read waited for all of it). On a
 * database with one connection (PGlite), `beforeWrite` also holds an ingest transaction back
 * while a read is in progress, for `maxDelayMs` at most, so writes are delayed but never
 * starved. Without it each query of a search waits behind the next ingest batch, and a
 * search of four queries behind four of them.
 */
export class ReadPriority {
  private reads = 0;
  private waiters: (() => void)[] = [];
  private lastReadEnded = -Infinity;

  constructor(
    private readonly maxDelayMs: number,
    private readonly recentMs: number,
  ) {}

  /** Whether reads are in progress or ended within recentMs (a long write that starts now would make the next one wait). */
  get reading(): boolean {
    return this.reads > 0 || performance.now() - this.lastReadEnded < this.recentMs;
  }

  /** Read requests in progress. */
  get inProgress(): number {
    return this.reads;
  }

  enter(): void {
    this.reads++;
  }

  leave(): void {
    if (this.reads > 0) this.reads--;
    if (this.reads === 0) {
      this.lastReadEnded = performance.now();
      this.flush();
    }
  }

  beforeWrite(): Promise<void> {
    if (this.reads === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.maxDelayMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(done);
    });
  }

  private flush() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A write route whose work waits for a group commit (ingest): not counted as a read. */
    ingest?: boolean;
  }
}
