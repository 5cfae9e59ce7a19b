/**
 * Reads before writes on a database with one connection (PGlite): a write transaction
 * (an ingest batch) starts only when no read request is in progress, or after `maxDelayMs`,
 * so writes are delayed but never starved. Without it each query of a search waits behind
 * the next ingest batch, and a search of four queries behind four of them.
 */
export class ReadPriority {
  private reads = 0;
  private waiters: (() => void)[] = [];

  constructor(private readonly maxDelayMs: number) {}

  /** Whether a read request is in progress (a write that starts now makes it wait). */
  get reading(): boolean {
    return this.reads > 0;
  }

  enter(): void {
    this.reads++;
  }

  leave(): void {
    if (this.reads > 0) this.reads--;
    if (this.reads === 0) this.flush();
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
