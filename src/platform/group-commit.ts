/**
 * Group commit: work submitted for the same key while earlier work is being written joins
 * the next transaction, so N concurrent requests cost one transaction instead of N (one
 * round of statements, one commit). Each submitter's promise settles only after the
 * transaction holding its work has committed, so an acknowledgement still means durable.
 *
 * A merged transaction that fails is retried one submission at a time: a bad submission
 * fails alone and never takes its neighbours down with it.
 */
export interface GroupCommitOptions<T> {
  /** Transactions in progress at once per key (PGlite runs one at a time anyway). */
  maxConcurrent: number;
  /**
   * Transactions in progress at once over all keys: the rest of the database's connections
   * stay free for reads. Keys waiting for a free one take turns (no key starves the others).
   * Asked as each transaction starts.
   */
  maxConcurrentTotal?: number | (() => number);
  /** Awaited before a transaction starts (reads go first on a single-connection database). */
  beforeWrite?: () => Promise<void>;
  /**
   * A transaction takes submissions until their weights reach this (always at least one);
   * asked as each transaction starts.
   */
  maxWeight: number | (() => number);
  weight(item: T): number;
}

interface Waiting<T> {
  item: T;
  resolve(): void;
  reject(err: unknown): void;
}

interface Lane<T> {
  waiting: Waiting<T>[];
  running: number;
  scheduled: boolean;
}

export class GroupCommit<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  private running = 0;
  /** Keys with work that found every transaction slot taken, in the order they asked. */
  private readonly turns: string[] = [];

  constructor(
    /** Writes the items in one transaction. */
    private readonly write: (items: T[]) => Promise<void>,
    private readonly options: GroupCommitOptions<T>,
  ) {}

  /** Submissions waiting for a transaction, over every key, and their summed weight. */
  waiting(): { submissions: number; weight: number } {
    let submissions = 0;
    let weight = 0;
    for (const lane of this.lanes.values()) {
      submissions += lane.waiting.length;
      for (const w of lane.waiting) weight += this.options.weight(w.item);
    }
    return { submissions, weight };
  }

  submit(key: string, item: T): Promise<void> {
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { waiting: [], running: 0, scheduled: false }));
    const done = new Promise<void>((resolve, reject) => lane.waiting.push({ item, resolve, reject }));
    this.schedule(key, lane);
    return done;
  }

  /**
   * Starts the next transaction after the current I/O phase, so that every request already
   * read from the sockets in that phase joins it (a PGlite transaction never yields to I/O,
   * so without this pause each one would go alone).
   */
  private schedule(key: string, lane: Lane<T>) {
    if (lane.scheduled || lane.running >= this.options.maxConcurrent || !lane.waiting.length) return;
    if (this.running >= this.maxTotal()) {
      if (!this.turns.includes(key)) this.turns.push(key);
      return;
    }
    lane.scheduled = true;
    setImmediate(() => void this.startBatches(key, lane));
  }

  /** The scheduled turn: as many batches of the lane as the limits allow, each its own transaction. */
  private async startBatches(key: string, lane: Lane<T>) {
    if (this.options.beforeWrite) await this.options.beforeWrite();
    lane.scheduled = false;
    while (lane.running < this.options.maxConcurrent && lane.waiting.length && this.running < this.maxTotal()) {
      const batch = this.take(lane);
      lane.running++;
      this.running++;
      void this.commit(batch).finally(() => {
        lane.running--;
        this.running--;
        // Keys that waited for a slot go first; this key takes its turn after them.
        for (let next = this.turns.shift(); next !== undefined; next = this.turns.shift()) {
          const other = this.lanes.get(next);
          if (other?.waiting.length) {
            this.schedule(next, other);
            break;
          }
        }
        if (!lane.running && !lane.waiting.length && !lane.scheduled) this.lanes.delete(key);
        else this.schedule(key, lane);
      });
    }
    if (lane.waiting.length && lane.running < this.options.maxConcurrent) this.schedule(key, lane);
  }

  private maxTotal(): number {
    const max = this.options.maxConcurrentTotal ?? Infinity;
    return typeof max === 'function' ? max() : max;
  }

  private take(lane: Lane<T>): Waiting<T>[] {
    const max = typeof this.options.maxWeight === 'function' ? this.options.maxWeight() : this.options.maxWeight;
    let weight = 0;
    let n = 0;
    while (n < lane.waiting.length) {
      const w = this.options.weight(lane.waiting[n].item);
      if (n > 0 && weight + w > max) break;
      weight += w;
      n++;
    }
    return lane.waiting.splice(0, n);
  }

  private async commit(batch: Waiting<T>[]): Promise<void> {
    try {
      await this.write(batch.map((w) => w.item));
      for (const w of batch) w.resolve();
      return;
    } catch (err) {
      if (batch.length === 1) {
        batch[0].reject(err);
        return;
      }
    }
    for (const w of batch) {
      try {
        await this.write([w.item]);
        w.resolve();
      } catch (err) {
        w.reject(err);
      }
    }
  }
}
