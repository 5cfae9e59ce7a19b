/**
 * The worker thread that owns PGlite (its client: pglite-client.ts; the messages: pglite-protocol.ts). PGlite runs PostgreSQL as
 * WebAssembly, synchronously: a statement blocks the thread it runs on. Here it blocks
 * this thread, not the one answering HTTP.
 */
import { parentPort } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { DurableNodeFS, durableStartParams } from './pglite-fs.ts';
import type { OpenRequest, PgliteRequest, PgliteResponse } from './pglite-protocol.ts';

const port = parentPort!;
let pg: PGlite | null = null;
/**
 * Open transactions by the client's number: `tx` settles once PGlite has begun it (a 'begin'
 * waits for the transaction before it to end), and the statements sent behind the 'begin'
 * wait for it.
 */
const transactions = new Map<number, { tx: Promise<Transaction>; end: (commit: boolean) => void }>();
/** Ends the hold a backup took ('hold'), if one is taken. */
let releaseHold: (() => void) | null = null;

/** drizzle's parsers are identity functions for the types it reads as text (timestamps, intervals, dates): named here by oid. */
const identity = (v: string) => v;
const parsersFor = (oids: number[] | undefined) => (oids ? Object.fromEntries(oids.map((oid) => [oid, identity])) : undefined);

async function open(req: OpenRequest) {
  const fs = req.pgdata ? new DurableNodeFS(req.pgdata) : undefined;
  pg = await PGlite.create({
    fs,
    loadDataDir: req.loadDataDir ? new Blob([req.loadDataDir]) : undefined,
    extensions: { pg_trgm },
    pgliteWasmModule: req.wasmModule,
    postgresqlconf: req.conf,
    startParams: fs && req.durable ? durableStartParams() : undefined,
  });
}

function openTransaction(tx: number): Promise<Transaction> {
  const entry = transactions.get(tx);
  if (!entry) throw new Error(`transaction ${tx} is not open`);
  return entry.tx;
}

async function handle(req: PgliteRequest): Promise<unknown> {
  switch (req.op) {
    case 'open':
      return open(req);
    case 'query': {
      const on = req.tx ? await openTransaction(req.tx) : pg!;
      const r = await on.query(req.sql, req.params, { rowMode: req.rowMode, parsers: parsersFor(req.identityOids) });
      return { rows: r.rows, fields: r.fields, affectedRows: r.affectedRows };
    }
    case 'exec': {
      const on = req.tx ? await openTransaction(req.tx) : pg!;
      return (await on.exec(req.sql)).map((r) => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows }));
    }
    case 'begin': {
      let began!: (tx: Transaction) => void;
      let failed!: (err: Error) => void;
      let end: (commit: boolean) => void = () => {};
      const entry = {
        tx: new Promise<Transaction>((resolve, reject) => ((began = resolve), (failed = reject))),
        // Set before `tx` settles, so an 'end' (which waits for `tx`) always finds it.
        end: (commit: boolean) => end(commit),
      };
      entry.tx.catch(() => {}); // the statements waiting for it report the failure
      transactions.set(req.tx, entry);
      pg!
        .transaction(
          (tx) =>
            new Promise<void>((commit, rollback) => {
              end = (ok) => (ok ? commit() : rollback(new Error('rolled back')));
              began(tx);
            }),
        )
        .then(
          () => port.postMessage({ id: -req.tx, result: null } satisfies PgliteResponse),
          (err: Error) => {
            failed(err);
            port.postMessage({ id: -req.tx, error: { message: err.message, code: (err as { code?: string }).code } } satisfies PgliteResponse);
          },
        )
        .finally(() => transactions.delete(req.tx));
      return null;
    }
    case 'end': {
      const entry = transactions.get(req.tx);
      if (entry) void entry.tx.then(() => entry.end(req.commit), () => {});
      return null;
    }
    case 'listen':
      await pg!.listen(req.channel, () => port.postMessage({ id: 0, notify: req.channel } satisfies PgliteResponse));
      return null;
    case 'unlisten':
      await pg?.unlisten(req.channel);
      return null;
    case 'dump': {
      // Between transactions (an open one waits to finish; none starts until the files are
      // read): a backup of a running server (ops/backup.ts) holds only committed work.
      const blob = await pg!._runExclusiveTransaction(() => pg!.dumpDataDir('none'));
      return new Uint8Array(await blob.arrayBuffer());
    }
    case 'hold': {
      await pg!.exec('CHECKPOINT');
      // Between transactions, as 'dump' is; until 'release', every statement waits.
      return new Promise<null>((held) => {
        void pg!._runExclusiveTransaction(
          () =>
            new Promise<void>((release) => {
              releaseHold = release;
              held(null);
            }),
        );
      });
    }
    case 'release':
      releaseHold?.();
      releaseHold = null;
      return null;
    case 'close':
      await pg?.close();
      pg = null;
      return null;
  }
}

port.on('message', (req: PgliteRequest) => {
  handle(req).then(
    (result) => {
      if (req.id !== 0) port.postMessage({ id: req.id, result } satisfies PgliteResponse);
    },
    (err: Error & Record<string, unknown>) =>
      req.id !== 0 &&
      port.postMessage({
        id: req.id,
        // PostgreSQL's fields (code, detail, constraint, ...) travel with the message: callers read them.
        error: { message: err.message, ...Object.fromEntries(Object.entries(err).filter(([, v]) => typeof v === 'string' || typeof v === 'number')) },
      } satisfies PgliteResponse),
  );
});
