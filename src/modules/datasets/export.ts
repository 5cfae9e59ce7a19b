import type { Readable } from 'node:stream';
import { pagedStream } from '../../platform/paged-stream.ts';
import { checkVersion, requireDataset, type DatasetDeps, type Scope } from './context.ts';
import { WALK_BATCH } from './read-dataset.ts';
import type { Column } from './schemas.ts';
import * as store from './store.ts';

/**
 * A dataset (now, or as of a version) as CSV or JSON lines, streamed: read in batches as the
 * client takes them, never whole. Both hold the entries only (one column per dataset column,
 * in order), so an export uploads back as it was.
 *
 * CSV cells that are text starting with `=`, `+`, `-`, `@`, a tab or a carriage return get a
 * leading `'` (OWASP, "CSV Injection"): a spreadsheet opening the file shows them as text
 * instead of running them as formulas, unless `cells` is 'exact' (a file for a program, or to
upload back). JSON lines are never escaped.
 */
export async function exportDataset(deps: DatasetDeps, scope: Scope, slugOrId: string, format: 'csv' | 'jsonl', version?: number, cells: 'spreadsheet' | 'exact' = 'spreadsheet') {
  const cell = cells === 'exact' ? exactCsvCell : csvCell;
  // The whole export from one place: a read replica when one is past the client's writes (DATABASE_READ_URL), else the primary.
  const reads = await deps.db.reads.executor();
  const d = await requireDataset(reads, scope, slugOrId);
  const asOf = checkVersion(d, version) ?? d.version;
  const columns: Column[] = asOf === d.version ? (d.columnTypes as Column[]) : (((await store.versionRow(reads, d.id, asOf))?.columnTypes ?? d.columnTypes) as Column[]);
  const names = columns.map((c) => c.name);
  let after = -1;
  let done = false;
  const source = {
    async next(): Promise<string | null> {
      if (done) return null;
      const batch = await store.recordsAfter(reads, d.id, asOf, after, WALK_BATCH);
      if (batch.length < WALK_BATCH) done = true;
      if (!batch.length) return null;
      after = batch[batch.length - 1].position;
      let out = '';
      for (const r of batch) {
        const stored = store.entryOf(r);
        if (format === 'csv') out += names.map((n) => cell(stored[n])).join(',') + '\r\n';
        else {
          const entry: Record<string, unknown> = {};
          for (const n of names) entry[n] = stored[n] ?? null;
          out += JSON.stringify(entry) + '\n';
        }
      }
      return out;
    },
    close: async () => {},
  };
  const head = format === 'csv' ? names.map((n) => cell(n)).join(',') + '\r\n' : '';
  const stream: Readable = pagedStream(head, source, '');
  const filename = `${d.slug}${version !== undefined ? `-v${asOf}` : ''}.${format}`;
  return { stream, filename, contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8' };
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV cell: text as is (formula-like text escaped), null empty, anything else as JSON; quoted when it must be. */
export function csvCell(value: unknown): string {
  return exactCsvCell(typeof value === 'string' && FORMULA_START.test(value) ? `'${value}` : value);
}

/** One CSV cell with the value as stored: text as is, null empty, anything else as JSON; quoted when it must be. */
function exactCsvCell(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'boolean') text = String(value);
  else text = JSON.stringify(value);
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}
