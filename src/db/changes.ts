import pg from 'pg';

/**
 * Changes to a few small tables that every request reads (a project key's row, a project's
 * privacy settings), heard from the primary, so that a process may keep its copy of such a
 * row longer than its refresh interval without reading the primary again, and still drop it
 * within that interval after another process (or an operator's SQL) changed the table.
 *
 * How: a trigger on each watched table NOTIFYs `spyglass_changes` with the table's name
 * (migration 0075; the api key's "last used" time excepted). Each PostgreSQL process LISTENs
 * on a connection of its own and sends a trivial statement on it every HEARTBEAT_MS.
 * PostgreSQL hands a listener the notifications of every transaction committed before a
 * statement began before that statement's answer, so an answer to a heartbeat sent at time t
 * proves that this process has heard of every change committed before t. A copy is used past
 * its refresh interval only while no change to its table was heard since it was read and a
 * heartbeat sent less than the refresh interval ago has been answered: if the connection is
 * lost, slow or stalled, copies fall back to the refresh interval by themselves.
 *
 * PGlite (one process): nothing is watched, copies keep their refresh interval.
 */
export interface Changes {
  /** Taken before reading a row to keep: what `current` compares against. */
  stamp(table: WatchedTable): number;
  /** Whether a copy of a `table` row read at `readAt` (performance.now()) under `stamp` may be used now. */
  current(table: WatchedTable, copy: { stamp: number; readAt: number }, refreshMs: number): boolean;
  close(): Promise<void>;
}

export type WatchedTable = 'api_keys' | 'privacy_settings';

export const CHANGES_CHANNEL = 'spyglass_changes';
/** How often the listening connection is asked a trivial question (see above). */
export const HEARTBEAT_MS = 250;
const RECONNECT_MS = 1_000;

/** No watching: every copy lives its refresh interval (PGlite, and tests). */
export const refreshOnly: Changes = {
  stamp: () => 0,
  current: (_table, copy, refreshMs) => performance.now() - copy.readAt < refreshMs,
  close: async () => {},
};

/**
 * Watches the primary at `connectionString`, from the first `stamp` or `current` call on (a
 * CLI command that opens the database and never resolves a key starts nothing).
 */
export function watchChanges(connectionString: string): Changes {
  /** Bumped by every change heard, per table, and for all tables by each connection lost or made. */
  const counts = new Map<string, number>();
  let epoch = 0;
  /** The send time of the latest answered heartbeat (-Infinity: none on this connection yet). */
  let heardUpTo = -Infinity;
  let client: pg.Client | null = null;
  let started = false;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let retry: NodeJS.Timeout | null = null;
  let inFlight = false;

  const lose = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    epoch++;
    heardUpTo = -Infinity;
    void c.end().catch(() => {});
    if (!closed) retry = setTimeout(() => void connect(), RECONNECT_MS).unref();
  };

  const connect = async () => {
    const c = new pg.Client({ connectionString, connectionTimeoutMillis: 2_000 });
    client = c;
    c.on('error', () => lose(c));
    c.on('end', () => lose(c));
    c.on('notification', (n) => {
      if (n.channel !== CHANGES_CHANNEL) return;
      const table = n.payload ?? '';
      counts.set(table, (counts.get(table) ?? 0) + 1);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANGES_CHANNEL}`);
      // Rows read before the LISTEN took effect may miss a change nobody told us of.
      epoch++;
    } catch {
      lose(c);
    }
  };

  const beat = async () => {
    const c = client;
    if (!c || inFlight) return;
    inFlight = true;
    const sentAt = performance.now();
    try {
      await c.query('SELECT 1');
      if (client === c) heardUpTo = Math.max(heardUpTo, sentAt);
    } catch {
      lose(c);
    } finally {
      inFlight = false;
    }
  };

  const start = () => {
    if (started || closed) return;
    started = true;
    void connect();
    timer = setInterval(() => void beat(), HEARTBEAT_MS).unref();
  };

  return {
    stamp(table) {
      start();
      return epoch * 1_000_000_000 + (counts.get(table) ?? 0);
    },
    current(table, copy, refreshMs) {
      start();
      const now = performance.now();
      if (now - copy.readAt < refreshMs) return true;
      return copy.stamp === epoch * 1_000_000_000 + (counts.get(table) ?? 0) && heardUpTo > now - refreshMs;
    },
    close: async () => {
      closed = true;
      if (timer) clearInterval(timer);
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
