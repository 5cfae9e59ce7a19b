import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { Executor } from '../../db/index.ts';
import { AppError, badRequest, conflict } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { findUnstorable } from '../../platform/nul-guard.ts';
import { afterBulkWrite, emitDatasetEvent, entryRedaction, requireDataset, type DatasetDeps, type Scope } from './context.ts';
import { convertValue } from './convert.ts';
import { insertNewDataset, slugConflict, slugOf } from './create-dataset.ts';
import { FileRowReader, formatOf, type FileRow } from './file-rows.ts';
import { boundaryOf, readMultipart } from './multipart.ts';
import { presentUploadCreated } from './presenters.ts';
import { z } from 'zod';
import { COLUMN_TYPES, MAX_COLUMNS, MAX_NAME, type Column } from './schemas.ts';
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
const MAX_MAPPING_PART = 1024 * 1024;

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

/**
 * The optional multipart part `mapping` (before `file`): JSON `[{from, name, type}]`, one per
 * dataset column: the file column it is read from and its name and type. File columns it does
 * not name are left out.
 */
export const uploadMappingSchema = z
  .array(z.object({ from: z.string().min(1).max(MAX_NAME), name: z.string().min(1).max(MAX_NAME), type: z.enum(COLUMN_TYPES) }))
  .min(1, 'at least one column')
  .max(MAX_COLUMNS);
export type UploadMapping = z.infer<typeof uploadMappingSchema>;

function parseMapping(text: string): UploadMapping {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badRequest('validation_error', 'mapping: not JSON; send [{"from": "<file column>", "name": "<dataset column>", "type": "string"}, ...]', 'mapping');
  }
  const parsed = uploadMappingSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = ['mapping', ...issue.path].join('.');
    throw badRequest('validation_error', `${field}: ${issue.message}`, field);
  }
  const names = new Set<string>();
  parsed.data.forEach((m, i) => {
    if (names.has(m.name)) throw badRequest('validation_error', `mapping.${i}.name: the column name "${m.name}" is used twice`, `mapping.${i}.name`);
    names.add(m.name);
  });
  return parsed.data;
}

/** The mapped columns' reader: every `from` must be a column of the file. */
function mappedFit(fileColumns: string[], mapping: UploadMapping) {
  const present = new Set(fileColumns);
  mapping.forEach((m, i) => {
    if (!present.has(m.from)) {
      throw new AppError(400, 'columns_mismatch', `mapping.${i}.from: the file has no column "${m.from}"; its columns are ${fileColumns.map((c) => `"${c}"`).join(', ')}`, {
        field: `mapping.${i}.from`,
        meta: { missing: [m.from], unexpected: [] },
      });
    }
  });
  return (values: Record<string, unknown>) => {
    const entry: Record<string, unknown> = {};
    for (const m of mapping) entry[m.name] = convertValue(values[m.from], m.type);
    return entry;
  };
}

/** How file rows become entries: decided once the file's columns are known. */
type Fitter = (fileColumns: string[], mapping: UploadMapping | null) => { columns: Column[]; fit: (values: Record<string, unknown>) => Record<string, unknown> };

async function receive(
  deps: DatasetDeps,
  contentType: string | undefined,
  body: AsyncIterable<Buffer | string>,
  fitter: Fitter,
  onName: (name: string) => Promise<void>,
  redact: (entry: Record<string, unknown>) => Record<string, unknown>,
): Promise<Received> {
  const boundary = boundaryOf(contentType);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-upload-'));
  const spool = path.join(dir, 'rows.jsonl');
  // Written by libuv's threads while the next part of the body is parsed; drained between chunks.
  const out = fs.createWriteStream(spool, { mode: 0o600 });
  const failed = new Promise<never>((_, reject) => out.on('error', reject));
  failed.catch(() => undefined);
  let pending = '';
  const flush = () => {
    if (pending) out.write(pending);
    pending = '';
  };
  const drained = () => (out.writableNeedDrain ? Promise.race([new Promise<void>((resolve) => out.once('drain', () => resolve())), failed]) : undefined);
  let name: string | null = null;
  let mapping: UploadMapping | null = null;
  let count = 0;
  let columns: Column[] | null = null;
  let seenFile = false;
  try {
    let part: { name: string; reader: FileRowReader | null; text: Buffer[]; bytes: number } | null = null;
    let fit: ((values: Record<string, unknown>) => Record<string, unknown>) | null = null;
    const sink = (row: FileRow, reader: FileRowReader) => {
      if (!fit) {
        const fitted = fitter(reader.columns!, mapping);
        columns = fitted.columns;
        fit = fitted.fit;
      }
      if (row.row > deps.limits.uploadMaxRows) {
        throw new AppError(400, 'validation_error', `file: more than ${deps.limits.uploadMaxRows} data rows (row ${row.row} is on line ${row.line}); split the file`, {
          field: 'file',
          meta: { line: row.line, row: row.row },
        });
      }
      // Redacted before the spool file: raw values never reach the disk.
      pending += JSON.stringify(redact(fit(row.values))) + '\n';
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
          await drained();
        } else if (part.name === 'mapping') {
          if (part.bytes > MAX_MAPPING_PART) throw badRequest('validation_error', `mapping: larger than ${MAX_MAPPING_PART} bytes`, 'mapping');
          part.text.push(Buffer.from(ev.chunk));
        } else if (part.name === 'name') {
          if (part.bytes > MAX_TEXT_PART) throw badRequest('validation_error', `name: longer than ${MAX_NAME} characters`, 'name');
          part.text.push(Buffer.from(ev.chunk));
        }
      } else if (ev.type === 'end' && part) {
        if (part.reader) part.reader.end();
        else if (part.name === 'mapping') {
          if (seenFile) throw badRequest('validation_error', 'mapping: the part must come before the file part', 'mapping');
          mapping = parseMapping(Buffer.concat(part.text).toString('utf8'));
        } else if (part.name === 'name') {
          name = Buffer.concat(part.text).toString('utf8');
          checkName(name);
          await onName(name);
        }
        part = null;
      }
    }
    if (!seenFile) throw badRequest('validation_error', 'file: the multipart part "file" (with a filename) is required', 'file');
    flush();
    await Promise.race([new Promise<void>((resolve) => out.end(() => resolve())), failed]);
    return { name, spool, count, columns: columns! };
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  } finally {
    out.destroy();
  }
}

function checkName(name: string) {
  if (findUnstorable(name, 'name')) throw new AppError(400, 'invalid_character', 'name: the NUL character (U+0000) or a lone surrogate is not accepted', { field: 'name' });
  if (name.length < 1 || name.length > MAX_NAME) throw badRequest('validation_error', `name: 1..${MAX_NAME} characters`, 'name');
  slugOf(name, 'name');
}

/**
 * Stores the spooled rows as one new version of `d` (the caller's transaction). The next batch
 * is read and written as JSON while the database stores the last one.
 */
async function storeSpool(tx: Executor, scope: Scope, d: DatasetRow, spool: string, count: number, now: Date) {
  const { version, firstPosition } = await store.beginVersion(tx, d.id, count, now);
  let position = firstPosition;
  let batch: store.NewRecord[] = [];
  let storing: Promise<unknown> = Promise.resolve();
  const write = async () => {
    await storing;
    storing = store.insertRecords(tx, { datasetId: d.id, projectId: scope.projectId, version, firstPosition: position, now }, batch);
    // Awaited before the next batch or at the end; a failure meanwhile is not unhandled.
    storing.catch(() => undefined);
    position += batch.length;
    batch = [];
  };
  const lines = readline.createInterface({ input: fs.createReadStream(spool, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    batch.push({ id: newId('record'), entryJson: line });
    if (batch.length >= INSERT_BATCH) await write();
  }
  if (batch.length) await write();
  await storing;
  const recordCount = await store.endVersion(tx, { datasetId: d.id, version, change: 'file_uploaded', added: count, updated: 0, removed: 0, columnTypes: d.columnTypes, now });
  return { version, recordCount };
}

const cleanup = (spool: string) => fs.rmSync(path.dirname(spool), { recursive: true, force: true });

/** POST /api/dataset/upload: a new dataset from a file, its columns from the header or first object, all typed string. */
export async function uploadNewDataset(deps: DatasetDeps, scope: Scope, contentType: string | undefined, body: AsyncIterable<Buffer | string>) {
  const fitter: Fitter = (fileColumns, mapping) => {
    if (mapping) return { columns: mapping.map((m) => ({ name: m.name, type: m.type })), fit: mappedFit(fileColumns, mapping) };
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
  const redact = await entryRedaction(deps, scope.projectId);
  const received = await receive(
    deps,
    contentType,
    body,
    fitter,
    async (name) => {
      // Refused before the file is read when the slug is already taken.
      const slug = slugOf(name, 'name');
      if (await store.slugHolder(deps.db.orm, scope.projectId, slug)) throw slugConflict(slug, 'name');
    },
    redact,
  );
  try {
    if (received.name === null) throw badRequest('validation_error', 'name: the multipart part "name" (the new dataset\'s name) is required', 'name');
    const now = deps.clock.now();
    const row = await deps.db.orm.transaction(async (tx) => {
      const d = await insertNewDataset(tx, scope, received.name!, received.columns, now, 'name', false);
      const { version, recordCount } = await storeSpool(tx, scope, d, received.spool, received.count, now);
      await emitDatasetEvent(tx, scope, 'dataset.created', d, now, { version, recordCount });
      return d;
    });
    await afterBulkWrite(deps.db.orm, received.count);
    return presentUploadCreated(row, received.count);
  } finally {
    cleanup(received.spool);
  }
}

/** POST /api/dataset/{slugOrId}/upload: the file's columns must be the dataset's (as a set); values converted to the column types. */
export async function uploadToDataset(deps: DatasetDeps, scope: Scope, slugOrId: string, contentType: string | undefined, body: AsyncIterable<Buffer | string>) {
  const d = await requireDataset(deps.db.orm, scope, slugOrId);
  const datasetColumns = d.columnTypes as Column[];
  const fitter: Fitter = (fileColumns, mapping) => {
    if (mapping) {
      // Mapped onto the dataset's columns (by name, in the dataset's types); columns it does not name are null.
      const have = new Map(datasetColumns.map((c) => [c.name, c]));
      mapping.forEach((m, i) => {
        if (!have.has(m.name)) {
          throw new AppError(400, 'invalid_column', `mapping.${i}.name: "${m.name}" is not a column of dataset "${d.slug}"`, { field: `mapping.${i}.name` });
        }
      });
      const typed = mapping.map((m) => ({ ...m, type: have.get(m.name)!.type }));
      const fit = mappedFit(fileColumns, typed);
      return {
        columns: datasetColumns,
        fit: (values) => {
          const mapped = fit(values);
          const entry: Record<string, unknown> = {};
          for (const c of datasetColumns) entry[c.name] = mapped[c.name] ?? null;
          return entry;
        },
      };
    }
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
  const received = await receive(deps, contentType, body, fitter, async () => {}, await entryRedaction(deps, scope.projectId));
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
    await afterBulkWrite(deps.db.orm, received.count);
    return { datasetId: d.id, recordsCreated: received.count };
  } finally {
    cleanup(received.spool);
  }
}
