/**
 * The messages between PGlite's client (pglite-client.ts, on the main thread) and the worker
 * thread that owns the database (pglite-worker.ts).
 */
export interface OpenRequest {
  op: 'open';
  id: number;
  /** The data directory's pgdata folder; null: in memory. */
  pgdata: string | null;
  loadDataDir: Uint8Array | null;
  durable: boolean;
  conf: string[];
  /** PGlite's WebAssembly, compiled once by the process (pglite-client.ts). */
  wasmModule: WebAssembly.Module;
}
export type PgliteRequest =
  | OpenRequest
  | { op: 'query'; id: number; tx?: number; sql: string; params?: unknown[]; rowMode?: 'array' | 'object'; identityOids?: number[] }
  | { op: 'exec'; id: number; tx?: number; sql: string }
  /**
   * Opens transaction `tx` (numbered by the client). Not answered: the client sends the
   * transaction's first statements right behind it, and the worker runs them once it has
   * begun, so a transaction costs the database's thread no wait for the main thread to start.
   */
  | { op: 'begin'; id: 0; tx: number }
  /** Not answered either: the end of the transaction answers with id -tx. */
  | { op: 'end'; id: 0; tx: number; commit: boolean }
  | { op: 'dump'; id: number }
  | { op: 'hold'; id: number }
  | { op: 'release'; id: number }
  | { op: 'listen'; id: number; channel: string }
  | { op: 'unlisten'; id: number; channel: string }
  | { op: 'close'; id: number };
/** Negative ids answer the end of transaction -id; requests with id 0 get no answer. */
export type PgliteResponse =
  | { id: number; result: unknown; error?: undefined }
  | { id: number; error: { message: string } & Record<string, unknown> }
  /** A NOTIFY on a channel listened to (id 0: it answers no request). */
  | { id: 0; notify: string };
