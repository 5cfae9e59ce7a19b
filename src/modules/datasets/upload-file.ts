import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { Executor } from '../../db/index.ts';
import { AppError, badRequest, conflict } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { findUnstorable } from '../../platform/nul-guard.ts';
import { emitDatasetEvent, requireDataset, type DatasetDeps, type Scope } from './context.ts';
import { convertValue } from './convert.ts';
import { insertNewDataset, slugConflict, slugOf } from './create-dataset.ts';
import { FileRowReader, formatOf, type FileRow } from './file-rows.ts';
import { boundaryOf, readMultipart } from './multipart.ts';
import { presentUploadCreated } from './presenters.ts';
import { MAX_NAME, type Column } from './schemas.ts';
import * as store from './store.ts';
import type { DatasetRow } from './store.ts';

/**
 * Uploads (spec, Files): the multipart body is read as it arrives; the file's rows are checked
 * and converted as they come and spooled to a temporary file (never held in memory); once the
 * whole body has arrived and every row is good, one transaction stores them all, in batches of
 * many rows per statement. A refused upload (any 400 or 413) stores nothing.
 */

/** Rows per INSERT when storing an upload. */
const INSERT_BATCH = 1_000;
const MAX_TEXT_PART = 64 * 1024;

/** `id` and `selected` are the web app's own columns: `id_`, `selected_`, then `_1`, `_2`, ... on a further clash. */
export function renameReserved(columns: string[]): string[] {
  const taken = new Set(columns);
  return columns.map((c) => {
    if (c !== 'id' && c !== 'selected') return c;
    let name = `${c}_`;
    for (let n = 1; taken.has(name); n++) name = `${c}_${n}`;
    taken.add(name);
    return name;
  });
}

interface Received {
  name: string | null;
  spool: string;
  count: number;
  columns: Column[];
}

/** How file rows become entries: decided once the file's columns are known. */
type Fitter = (fileColumns: string[]) => { columns: Column[]; fit: (values: Record<string, unknown>) => Record<string, unknown> };

async function receive(
  deps: DatasetDeps,
  contentType: string | undefined,
  body: AsyncIterable<Buffer | string>,
  fitter: Fitter,
  onName: (name: string) => Promise<void>,
): Promise<Received> {
  const boundary = boundaryOf(contentType);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-upload-'));
  const spool = path.join(dir, 'rows.jsonl');
  const fd = fs.openSync(spool, 'w', 0o600);
  let pending = '';
  const flush = () => {
    if (pending) fs.writeSync(fd, pending);
    pending = '';
  };
  let name: string | null = null;
  let count = 0;
  let columns: Column[] | null = null;
  let seenFile = false;
  try {
    let part: { name: string; reader: FileRowReader | null; text: Buffer[]; bytes: number } | null = null;
    let fit: ((values: Record<string, unknown>) => Record<string, unknown>) | null = null;
    const sink = (row: FileRow, reader: FileRowReader) => {
      if (!fit) {
        const fitted = fitter(reader.columns!);
        columns = fitted.columns;
        fit = fitted.fit;
      }
      if (row.row > deps.limits.uploadMaxRows) {
        throw new AppError(400, 'validation_error', `file: more than ${deps.limits.uploadMaxRows} data rows (row ${row.row} is on line ${row.line}); split the file`, {
          field: 'file',
          meta: { line: row.line, row: row.row },
        });
      }
      pending += JSON.stringify(fit(row.values)) + '\n';
      count++;
      if (pending.length > 1 << 20) flush();
    };
    for await (const ev of readMultipart(body, boundary)) {
      if (ev.type === 'part') {
        if (ev.name === 'file') {
          if (seenFile) throw badRequest('validation_error', 'file: the body holds two file parts; upload one file per request', 'file');
          seenFile = true;
          if (ev.filename === null) throw badRequest('validation_error', 'file: the part has no filename (its extension gives the format: .csv, .json or .jsonl)', 'file');
          const reader: FileRowReader = new FileRowReader(formatOf(ev.filename), (row) => sink(row, reader));
          part = { name: 'file', reader, text: [], bytes: 0 };
        } else part = { name: ev.name, reader: null, text: [], bytes: 0 };
      } else if (ev.type === 'data' && part) {
        part.bytes += ev.chunk.length;
        if (part.reader) {
          if (part.bytes > deps.limits.uploadMaxBytes) {
            throw new AppError(413, 'payload_too_large', `file: larger than ${deps.limits.uploadMaxBytes} bytes (the upload limit); split the file`, { field: 'file' });
          }
          part.reader.write(ev.chunk);
        } else if (part.name === 'name') {
          if (part.bytes > MAX_TEXT_PART) throw badRequest('validation_error', `name: longer than ${MAX_NAME} characters`, 'name');
          part.text.push(Buffer.from(ev.chunk));
        }
      } else if (ev.type === 'end' && part) {
        if (part.reader) part.reader.end();
        else if (part.name === 'name') {
          name = Buffer.concat(part.text).toString('utf8');
          checkName(name);
          await onName(name);
        }
        part = null;
      }
    }
    if (!seenFile) throw badRequest('validation_error', 'file: the multipart part "file" (with a filename) is required', 'file');
    flush();
    return { name, spool, count, columns: columns! };
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  } finally {
    fs.closeSync(fd);
  }
}

function checkName(name: string) {
  if (findUnstorable(name, 'name')) throw new AppError(400, 'invalid_character', 'name: the NUL character (U+0000) or a lone surrogate is not accepted', { field: 'name' });
  if (name.length < 1 || name.length > MAX_NAME) throw badRequest('validation_error', `name: 1..${MAX_NAME} characters`, 'name');
  slugOf(name, 'name');
}

/** Stores the spooled rows as one new version of `d` (the caller's transaction). */
async function storeSpool(tx: Executor, scope: Scope, d: DatasetRow, spool: string, count: number, now: Date) {
  const { version, firstPosition } = await store.beginVersion(tx, d.id, count, now);
  let position = firstPosition;
  let batch: store.NewRecord[] = [];
  const write = async () => {
    await store.insertRecords(tx, { datasetId: d.id, projectId: scope.projectId, version, firstPosition: position, now }, batch);
    position += batch.length;
    batch = [];
  };
  const lines = readline.createInterface({ input: fs.createReadStream(spool, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    batch.push({ id: newId('record'), entry: JSON.parse(line) as Record<string, unknown> });
    if (batch.length >= INSERT_BATCH) await write();
  }
  if (batch.length) await write();
  const recordCount = await store.endVersion(tx, { datasetId: d.id, version, change: 'file_uploaded', added: count, updated: 0, removed: 0, columnTypes: d.columnTypes, now });
  return { version, recordCount };
}

const cleanup = (spool: string) => fs.rmSync(path.dirname(spool), { recursive: true, force: true });

/** POST /api/dataset/upload: a new dataset from a file, its columns from the header or first object, all typed string. */
export async function uploadNewDataset(deps: DatasetDeps, scope: Scope, contentType: string | undefined, body: AsyncIterable<Buffer | string>) {
  const fitter: Fitter = (fileColumns) => {
    const names = renameReserved(fileColumns);
    return {
      columns: names.map((name) => ({ name, type: 'string' as const })),
      fit: (values) => {
        const entry: Record<string, unknown> = {};
        for (let i = 0; i < names.length; i++) entry[names[i]] = values[fileColumns[i]] ?? null;
        return entry;
      },
    };
  };
  const received = await receive(deps, contentType, body, fitter, async (name) => {
    // Refused before the file is read when the slug is already taken.
    const slug = slugOf(name, 'name');
    if (await store.slugHolder(deps.db.orm, scope.projectId, slug)) throw slugConflict(slug, 'name');
  });
  try {
    if (received.name === null) throw badRequest('validation_error', 'name: the multipart part "name" (the new dataset\'s name) is required', 'name');
    const now = deps.clock.now();
    const row = await deps.db.orm.transaction(async (tx) => {
      const d = await insertNewDataset(tx, scope, received.name!, received.columns, now, 'name', false);
      const { version, recordCount } = await storeSpool(tx, scope, d, received.spool, received.count, now);
      await emitDatasetEvent(tx, scope, 'dataset.created', d, now, { version, recordCount });
      return d;
    });
    return presentUploadCreated(row, received.count);
  } finally {
    cleanup(received.spool);
  }
}

/** POST /api/dataset/{slugOrId}/upload: the file's columns must be the dataset's (as a set); values converted to the column types. */
export async function uploadToDataset(deps: DatasetDeps, scope: Scope, slugOrId: string, contentType: string | undefined, body: AsyncIterable<Buffer | string>) {
  const d = await requireDataset(deps.db.orm, scope, slugOrId);
  const datasetColumns = d.columnTypes as Column[];
  const fitter: Fitter = (fileColumns) => {
    const names = renameReserved(fileColumns);
    const have = new Set(datasetColumns.map((c) => c.name));
    const sent = new Set(names);
    const missing = datasetColumns.map((c) => c.name).filter((n) => !sent.has(n));
    const unexpected = names.filter((n) => !have.has(n));
    if (missing.length || unexpected.length) {
      const list = (xs: string[]) => xs.map((x) => `"${x}"`).join(', ');
      throw new AppError(
        400,
        'columns_mismatch',
        `file: its columns must be the dataset's (${list([...have]) || 'none'})${missing.length ? `; missing: ${list(missing)}` : ''}${unexpected.length ? `; unexpected: ${list(unexpected)}` : ''}`,
        { field: 'file', meta: { missing, unexpected } },
      );
    }
    const rawOf = new Map(names.map((n, i) => [n, fileColumns[i]]));
    return {
      columns: datasetColumns,
      fit: (values) => {
        const entry: Record<string, unknown> = {};
        for (const c of datasetColumns) entry[c.name] = convertValue(values[rawOf.get(c.name)!], c.type);
        return entry;
      },
    };
  };
  const received = await receive(deps, contentType, body, fitter, async () => {});
  try {
    const now = deps.clock.now();
    await deps.db.orm.transaction(async (tx) => {
      const locked = await requireDataset(tx, scope, d.id, true);
      if (JSON.stringify(locked.columnTypes) !== JSON.stringify(datasetColumns)) {
        throw conflict('dataset_changed', "the dataset's columns changed while the file was uploading; upload it again");
      }
      const { version, recordCount } = await storeSpool(tx, scope, locked, received.spool, received.count, now);
      await emitDatasetEvent(tx, scope, 'dataset.updated', { ...locked, version, updatedAt: now }, now, {
        version,
        change: 'file_uploaded',
        added: received.count,
        updated: 0,
        removed: 0,
        recordCount,
      });
    });
    return { datasetId: d.id, recordsCreated: received.count };
  } finally {
    cleanup(received.spool);
  }
}
