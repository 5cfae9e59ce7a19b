import { z } from 'zod';
import { AppError, badRequest, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { enqueueJobs, PermanentJobError, type ClaimedJob } from '../../platform/jobs/index.ts';
import { traceSearchSchema, type TraceSearch } from '../traces/index.ts';
import { afterBulkWrite, entryRedaction, requireDataset, writeVersion, type DatasetDeps, type Scope } from './context.ts';
import type { Column } from './schemas.ts';
import * as store from './store.ts';
import type { DatasetRow, NewRecord } from './store.ts';

/**
 * Adding traces and spans to a dataset: each becomes a record through a
 * column mapping (column -> what to take), remembered per dataset; records keep the trace and
 * span they came from. A list of traces or spans is added at once; every trace matching a
 * search (up to 10,000) is added by a background job whose progress is read by GET.
 */
export interface TraceDetailLike {
  trace_id: string;
  input: { value: string };
  output: { value: string };
  metadata: Record<string, unknown>;
  spans: { span_id: string; type: string; name?: string | null; model?: string | null; input: unknown; output: unknown; params?: Record<string, unknown> | null; contexts?: unknown }[];
}

/** What the traces module lends (through app.ts). */
export interface TraceSource {
  /**
   * Up to `pageSize` traces of the project at once, by id, with their spans of `spanTypes`
   * (null: every span) in the detail's order; an id of no trace is not in the map.
   */
  contents(projectId: string, traceIds: readonly string[], spanTypes: readonly string[] | null): Promise<Map<string, TraceDetailLike>>;
  /** Ids a `contents` call takes at most. */
  pageSize: number;
  /** Ids of the traces matching a search, newest first, at most `limit`. */
  matching(projectId: string, search: TraceSearch, limit: number): Promise<string[]>;
}

export const IMPORT_QUEUE = 'dataset-import';
/** What an import job carries: the import row it runs (checked when the job is claimed). */
export const importJobPayload = z.object({ importId: z.string() });
export const MAX_IMPORT = 10_000;

export const TRACE_SOURCES = ['input', 'output', 'contexts', 'messages', 'metadata', 'trace_id', 'span_id', 'model', 'name'] as const;
const sourceSchema = z
  .string()
  .refine((s) => (TRACE_SOURCES as readonly string[]).includes(s) || /^metadata\.[\w.-]{1,200}$/.test(s), {
    message: `one of ${TRACE_SOURCES.join(', ')}, or metadata.<key>`,
  });
export const traceMappingSchema = z
  .record(z.string().min(1).max(255), sourceSchema)
  .refine((m) => Object.keys(m).length > 0, 'at least one column')
  .describe('dataset column -> what to take: input, output, contexts (retrieved texts), messages (the conversation), metadata, metadata.<key>, trace_id, span_id, model, name');
export type TraceMapping = z.infer<typeof traceMappingSchema>;

const traceRef = z.object({
  traceId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'a trace id is 1..128 letters, digits or _ . : -'),
  spanId: z.string().min(1).max(256).optional().describe('a span of the trace: its own input and output instead of the trace\'s'),
});
export const fromTracesBody = z.object({
  items: z.array(traceRef).min(1).max(1000).optional().describe('traces or spans to add now (1..1000)'),
  filter: traceSearchSchema
    .optional()
    .describe('every trace matching this search (as POST /api/traces/search takes it), added by a background job'),
  limit: z.number().int().min(1).max(MAX_IMPORT).default(MAX_IMPORT).describe('with filter: at most this many traces (1..10000)'),
  mapping: traceMappingSchema.optional().describe('remembered for the dataset; default: the last mapping used'),
});
export type FromTracesBody = z.infer<typeof fromTracesBody>;

export const importSchema = z.object({
  id: z.string(),
  datasetId: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  total: z.number().int().describe('traces matched (known once running)'),
  done: z.number().int().describe('traces read so far'),
  recordsCreated: z.number().int(),
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

function text(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  const p = v as { type?: string; value?: unknown };
  if (typeof p === 'object' && 'value' in p) return p.value ?? null;
  return v;
}

/** The texts of the documents retrieved: a span's own contexts (langwatch.rag_contexts), else a retrieval's output. */
function contextsOf(spans: TraceDetailLike['spans']): string[] {
  const out: string[] = [];
  for (const s of spans) {
    if (!Array.isArray(s.contexts) && s.type !== 'rag' && s.type !== 'retriever') continue;
    const value = Array.isArray(s.contexts) ? s.contexts : text(s.output);
    for (const item of Array.isArray(value) ? value : value === null ? [] : [value]) {
      if (typeof item === 'string') out.push(item);
      else if (item && typeof item === 'object') {
        const o = item as Record<string, unknown>;
        const t = o.content ?? o.text ?? o.page_content ?? o.document;
        out.push(typeof t === 'string' ? t : JSON.stringify(item));
      }
    }
  }
  return out;
}

function messagesOf(input: unknown, output: unknown): unknown[] {
  const asMessages = (p: unknown, role: string): unknown[] => {
    const payload = p as { type?: string; value?: unknown } | null;
    if (!payload) return [];
    if (payload.type === 'chat_messages' && Array.isArray(payload.value)) return payload.value as unknown[];
    const value = text(p);
    return value === null || value === '' ? [] : [{ role, content: typeof value === 'string' ? value : JSON.stringify(value) }];
  };
  return [...asMessages(input, 'user'), ...asMessages(output, 'assistant')];
}

/** One record's entry from a trace (or one of its spans), column by column. */
export function entryFromTrace(detail: TraceDetailLike, spanId: string | null, mapping: TraceMapping, columns: Column[]): Record<string, unknown> {
  const span = spanId ? detail.spans.find((s) => s.span_id === spanId)! : null;
  const llm = detail.spans.find((s) => s.type === 'llm');
  const value = (source: string): unknown => {
    switch (source) {
      case 'input':
        return span ? text(span.input) : detail.input.value || null;
      case 'output':
        return span ? text(span.output) : detail.output.value || null;
      case 'contexts':
        return contextsOf(span ? [span] : detail.spans);
      case 'messages':
        return span ? messagesOf(span.input, span.output) : llm ? messagesOf(llm.input, llm.output) : messagesOf({ type: 'text', value: detail.input.value }, { type: 'text', value: detail.output.value });
      case 'metadata':
        return detail.metadata;
      case 'trace_id':
        return detail.trace_id;
      case 'span_id':
        return span?.span_id ?? null;
      case 'model':
        return (span ?? llm)?.model ?? null;
      case 'name':
        return span?.name ?? null;
      default:
        return detail.metadata[source.slice('metadata.'.length)] ?? null;
    }
  };
  const entry: Record<string, unknown> = {};
  for (const c of columns) entry[c.name] = c.name in mapping ? value(mapping[c.name]) : null;
  return entry;
}

/** The mapping to use (given, else remembered), checked against the columns. */
function mappingFor(d: DatasetRow, given: TraceMapping | undefined): TraceMapping {
  const mapping = given ?? (d.traceMapping as TraceMapping | null);
  if (!mapping) throw badRequest('validation_error', `mapping: dataset "${d.slug}" has no remembered mapping; send one (column -> input, output, contexts, ...)`, 'body.mapping');
  const columns = (d.columnTypes as Column[]).map((c) => c.name);
  for (const key of Object.keys(mapping)) {
    if (!columns.includes(key)) {
      throw new AppError(400, 'invalid_column', `body.mapping: "${key}" is not a column of dataset "${d.slug}"; its columns are ${columns.map((c) => `"${c}"`).join(', ')}`, {
        field: `body.mapping.${key}`,
      });
    }
  }
  return mapping;
}

export async function addFromTraces(deps: DatasetDeps & { traces: TraceSource }, scope: Scope, slugOrId: string, body: FromTracesBody) {
  if ((body.items ? 1 : 0) + (body.filter ? 1 : 0) !== 1) {
    throw badRequest('validation_error', 'body: send either items (traces or spans to add now) or filter (a search, added in the background)', 'body.items');
  }
  const d = await requireDataset(deps.db.orm, scope, slugOrId);
  const mapping = mappingFor(d, body.mapping);
  const now = deps.clock.now();
  if (body.filter) {
    const id = newId('import');
    await deps.db.orm.transaction(async (tx) => {
      if (body.mapping) await store.updateDataset(tx, d.id, { traceMapping: mapping });
      await store.insertImport(tx, { id, projectId: scope.projectId, datasetId: d.id, status: 'queued', request: { filter: body.filter, limit: body.limit, mapping, organizationId: scope.organizationId, linkBase: scope.linkBase }, createdAt: now, updatedAt: now });
      await enqueueJobs(tx, [{ queue: IMPORT_QUEUE, payload: { importId: id }, runAt: now.getTime(), maxAttempts: 3 }], now.getTime());
    });
    return { status: 202 as const, body: presentImport((await store.findImport(deps.db.orm, scope.projectId, d.id, id))!) };
  }
  const items = body.items!;
  // A span of any type may be named: every span of the traces named.
  const details = new Map<string, TraceDetailLike>();
  const ids = [...new Set(items.map((item) => item.traceId))];
  for (let i = 0; i < ids.length; i += deps.traces.pageSize) {
    for (const [id, detail] of await deps.traces.contents(scope.projectId, ids.slice(i, i + deps.traces.pageSize), null)) details.set(id, detail);
  }
  const redact = await entryRedaction(deps, scope.projectId);
  const records: NewRecord[] = [];
  for (const [i, item] of items.entries()) {
    const detail = details.get(item.traceId);
    if (!detail) throw notFound('trace_not_found', `body.items.${i}.traceId: no trace ${item.traceId} in this project`);
    if (item.spanId && !detail.spans.some((s) => s.span_id === item.spanId)) {
      throw notFound('span_not_found', `body.items.${i}.spanId: no span ${item.spanId} in trace ${item.traceId}`);
    }
    records.push({ id: newId('record'), entry: redact(entryFromTrace(detail, item.spanId ?? null, mapping, d.columnTypes as Column[])), traceId: item.traceId, spanId: item.spanId ?? null });
  }
  const result = await deps.db.orm.transaction(async (tx) => {
    const locked = await requireDataset(tx, scope, d.id, true);
    if (body.mapping) await store.updateDataset(tx, d.id, { traceMapping: mapping });
    return writeVersion(tx, scope, locked, 'from_traces', { add: records }, now);
  });
  return { status: 201 as const, body: { recordsCreated: result.added.length, version: result.version } };
}

export function presentImport(r: store.ImportRow): z.output<typeof importSchema> {
  return {
    id: r.id,
    datasetId: r.datasetId,
    status: r.status as z.output<typeof importSchema>['status'],
    total: r.total,
    done: r.done,
    recordsCreated: r.status === 'completed' ? r.total : 0,
    error: r.error,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export async function getImport(deps: DatasetDeps, scope: Scope, slugOrId: string, importId: string) {
  const d = await requireDataset(deps.db.orm, scope, slugOrId);
  const r = await store.findImport(deps.db.orm, scope.projectId, d.id, importId);
  if (!r) throw notFound('import_not_found', `no import ${importId} of dataset "${d.slug}"`);
  return presentImport(r);
}

/** The spans a whole trace's entry reads: the first LLM call (messages, model) and the retrievals (contexts). */
const TRACE_ENTRY_SPANS = ['llm', 'rag', 'retriever'];

/**
 * The background job: match, read the traces a page at a time (one statement per page, so
 * ingest's statements interleave with it), then add every record in one transaction.
 */
export async function runImport(deps: DatasetDeps & { traces: TraceSource }, job: ClaimedJob<z.infer<typeof importJobPayload>>): Promise<void> {
  const importId = job.payload.importId;
  const r = await store.importById(deps.db.orm, importId);
  if (!r || r.status === 'completed' || r.status === 'failed') return;
  const request = r.request as { filter: TraceSearch; limit: number; mapping: TraceMapping; organizationId: string; linkBase: string };
  const scope: Scope = { projectId: r.projectId, organizationId: request.organizationId, linkBase: request.linkBase };
  const fail = async (message: string) => {
    await store.updateImport(deps.db.orm, importId, { status: 'failed', error: message, updatedAt: deps.clock.now() });
    throw new PermanentJobError(message);
  };
  const d = await store.findLive(deps.db.orm, r.projectId, r.datasetId);
  if (!d) return fail('the dataset was archived');
  const ids = await deps.traces.matching(r.projectId, request.filter, request.limit);
  await store.updateImport(deps.db.orm, importId, { status: 'running', total: ids.length, done: 0, updatedAt: deps.clock.now() });
  // Traces stored before the project's privacy settings changed are redacted on their way in too.
  const redact = await entryRedaction(deps, r.projectId);
  const records: NewRecord[] = [];
  const { pageSize } = deps.traces;
  for (let i = 0; i < ids.length; i += pageSize) {
    const page = ids.slice(i, i + pageSize);
    const details = await deps.traces.contents(r.projectId, page, TRACE_ENTRY_SPANS);
    for (const traceId of page) {
      const detail = details.get(traceId);
      if (detail) records.push({ id: newId('record'), entry: redact(entryFromTrace(detail, null, request.mapping, d.columnTypes as Column[])), traceId });
    }
    await store.updateImport(deps.db.orm, importId, { done: i + page.length, updatedAt: deps.clock.now() });
  }
  const now = deps.clock.now();
  await deps.db.orm.transaction(async (tx) => {
    const locked = await store.findLive(tx, r.projectId, r.datasetId, true);
    if (!locked) return;
    for (let i = 0; i < records.length; i += 1000) {
      // One version per 1,000 records keeps each statement's parameter bounded.
      await writeVersion(tx, scope, (await store.findLive(tx, r.projectId, r.datasetId))!, 'from_traces', { add: records.slice(i, i + 1000) }, now);
    }
    await store.updateImport(tx, importId, { status: 'completed', total: records.length, done: ids.length, updatedAt: now });
  });
  await afterBulkWrite(deps.db.orm, records.length);
}
