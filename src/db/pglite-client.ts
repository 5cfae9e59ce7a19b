import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { OpenRequest, PgliteRequest, PgliteResponse } from './pglite-protocol.ts';

/**
 * PGlite in a worker thread, behind the part of PGlite's interface Spyglass uses (query,
 * exec, transaction, dumpDataDir, close; drizzle's driver needs no more). PGlite executes
 * SQL synchronously as WebAssembly: on the main thread a 2,000-span ingest transaction kept
 * every other request, /healthz included, waiting for seconds under load. In a worker the
 * main thread keeps answering, and the database's work runs on the second core.
 */
type Distribute<T> = T extends unknown ? Omit<T, 'id'> : never;

interface Results {
  rows: unknown[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
}
interface QueryOptions {
  rowMode?: 'array' | 'object';
  parsers?: Record<number, unknown>;
}
export interface PgliteQueries {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results & { rows: T[] }>;
  exec(sql: string): Promise<Results[]>;
}

/**
 * PGlite's WebAssembly (9 MB), compiled once per process: each database's worker thread is
 * given the compiled module instead of compiling it again. A server opens one database; a test
 * worker opens one for every file that starts an app of its own.
 */
let pgliteWasm: Promise<WebAssembly.Module> | null = null;
/** The global WebAssembly object (Node has it; the server's TypeScript libraries declare only its types). */
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } }).WebAssembly;
function compiledPglite(): Promise<WebAssembly.Module> {
  pgliteWasm ??= fs.promises.readFile(createRequire(import.meta.url).resolve('@electric-sql/pglite/pglite.wasm')).then((bytes) => wasmApi.compile(bytes));
  return pgliteWasm;
}

export class PGliteClient implements PgliteQueries {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private nextId = 1;
  private nextTx = 1;
  private readonly listeners = new Map<string, Set<() => void>>();

  private constructor() {
    this.worker = new Worker(new URL('./pglite-worker.entry.mjs', import.meta.url));
    this.worker.on('message', (m: PgliteResponse) => {
      if ('notify' in m) {
        for (const listener of this.listeners.get(m.notify) ?? []) listener();
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error) p.reject(Object.assign(new Error(m.error.message), m.error));
      else p.resolve(m.result);
    });
    this.worker.on('error', (err) => {
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    });
  }

  static async create(options: Omit<OpenRequest, 'op' | 'id' | 'wasmModule'>): Promise<PGliteClient> {
    const wasmModule = await compiledPglite();
    const client = new PGliteClient();
    try {
      await client.call({ op: 'open', ...options, wasmModule }, options.loadDataDir ? [options.loadDataDir.buffer as ArrayBuffer] : []);
    } catch (err) {
      await client.worker.terminate();
      throw err;
    }
    return client;
  }

  private call<T>(req: Distribute<PgliteRequest>, transfer: ArrayBuffer[] = []): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id }, transfer);
    });
  }

  private waitFor<T>(id: number): Promise<T> {
    return new Promise<T>((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  query<T>(sql: string, params?: unknown[], options?: QueryOptions, tx?: number) {
    const identityOids = options?.parsers ? Object.keys(options.parsers).map(Number) : undefined;
    return this.call<Results & { rows: T[] }>({ op: 'query', tx, sql, params, rowMode: options?.rowMode, identityOids });
  }

  exec(sql: string, tx?: number) {
    return this.call<Results[]>({ op: 'exec', tx, sql });
  }

  /** Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. */
  async transaction<T>(fn: (tx: PgliteQueries) => Promise<T>): Promise<T> {
    const txId = this.nextTx++;
    const ended = this.waitFor<null>(-txId);
    // Not awaited: the statements of `fn` follow it in the worker's queue (PgliteRequest 'begin').
    this.worker.postMessage({ op: 'begin', id: 0, tx: txId } satisfies PgliteRequest);
    const tx: PgliteQueries = {
      query: (sql, params, options) => this.query(sql, params, options, txId),
      exec: (sql) => this.exec(sql, txId),
    };
    let result: T;
    try {
      result = await fn(tx);
    } catch (err) {
      this.worker.postMessage({ op: 'end', id: 0, tx: txId, commit: false } satisfies PgliteRequest);
      await ended.catch(() => {});
      throw err;
    }
    this.worker.postMessage({ op: 'end', id: 0, tx: txId, commit: true } satisfies PgliteRequest);
    await ended;
    return result;
  }

  /** Calls `onNotify` at every NOTIFY on `channel` (delivered when the notifying transaction commits); answers how to stop. */
  async listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await this.call({ op: 'listen', channel });
    }
    set.add(onNotify);
    return async () => {
      set.delete(onNotify);
      if (set.size || this.listeners.get(channel) !== set) return;
      this.listeners.delete(channel);
      await this.call({ op: 'unlisten', channel }).catch(() => {}); // closed already
    };
  }

  /**
   * A checkpoint, then no statement runs until the answered function is called (an open
   * transaction finishes first): the files of the data directory on disk are then a
   * consistent copy, as after a crash, for as long as the hold lasts (ops/backup.ts).
   */
  async hold(): Promise<() => Promise<void>> {
    await this.call({ op: 'hold' });
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await this.call({ op: 'release' });
    };
  }

  async dumpDataDir(): Promise<Blob> {
    return new Blob([await this.call<Uint8Array>({ op: 'dump' })]);
  }

  async close(): Promise<void> {
    try {
      await this.call({ op: 'close' });
    } finally {
      await this.worker.terminate();
    }
  }
}
