import { useMemo } from 'react';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, DELETE, GET, PATCH, POST, sessionFetch, toApiError, type Answer } from './client.ts';
import type { ColumnType } from './types.ts';

export type Dataset = Answer<'/api/dataset', 'post'>;
export type DatasetRecord = Answer<'/api/dataset/{slugOrId}/records', 'get'>['data'][number];

/** A background import of traces into a dataset. */
export type DatasetImport = Answer<'/api/dataset/{slugOrId}/imports/{importId}', 'get'>;

export const datasetKeys = {
  all: (projectId: string) => ['datasets', projectId] as const,
  /** Every dataset's header (no id), or one. */
  one: (projectId: string, datasetId?: string) => (datasetId === undefined ? (['dataset', projectId] as const) : (['dataset', projectId, datasetId] as const)),
  versions: (projectId: string, datasetId?: string) => (datasetId === undefined ? (['dataset-versions', projectId] as const) : (['dataset-versions', projectId, datasetId] as const)),
  firstRow: (projectId: string, datasetId: string | undefined) => ['dataset-first-row', projectId, datasetId] as const,
  traceMapping: (projectId: string, datasetId: string | null) => ['dataset-trace-mapping', projectId, datasetId] as const,
};

/** Column types, in the order the pickers list them (the API's COLUMN_TYPES). */
export const COLUMN_TYPES: ColumnType[] = ['string', 'number', 'boolean', 'date', 'list', 'json', 'chat_messages', 'rag_contexts', 'spans', 'annotations', 'evaluations', 'image'];
export type Column = Dataset['columnTypes'][number];

/** Rows per page of the dataset grid. */
export const DATASET_PAGE = 200;

const at = (slugOrId: string) => ({ path: { slugOrId } });
const listDatasets = (projectId: string, signal?: AbortSignal) => GET('/api/dataset', { params: { query: { limit: 1000 } }, projectId, signal });

export function useDatasets(projectId: string) {
  return useQuery({
    queryKey: datasetKeys.all(projectId),
    queryFn: ({ signal }) => listDatasets(projectId, signal),
  });
}

export function useDataset(projectId: string, datasetId: string) {
  return useQuery(datasetQuery(projectId, datasetId));
}

/** The dataset's header query, also started by the route before its page's code has loaded. */
export function datasetQuery(projectId: string, datasetId: string) {
  return queryOptions({
    queryKey: datasetKeys.one(projectId, datasetId),
    // The dataset without its records: the first page of 1 record answers the count, the list item the rest.
    queryFn: async ({ signal }) => {
      const [list, versions] = await Promise.all([
        listDatasets(projectId, signal),
        GET('/api/dataset/{slugOrId}/versions', { params: { ...at(datasetId), query: { limit: 1 } }, projectId, signal }),
      ]);
      const found = list.data.find((d) => d.id === datasetId || d.slug === datasetId);
      if (!found) throw new ApiError(404, 'dataset_not_found', `No dataset ${datasetId} in this project`);
      return { ...found, currentVersion: versions.currentVersion };
    },
    retry: false,
  });
}

export function useVersions(projectId: string, datasetId: string, enabled: boolean) {
  return useQuery({
    queryKey: datasetKeys.versions(projectId, datasetId),
    queryFn: ({ signal }) => GET('/api/dataset/{slugOrId}/versions', { params: { ...at(datasetId), query: { limit: 1000 } }, projectId, signal }),
    enabled,
  });
}

/**
 * The first page of rows, asked for by the route as the page opens (with the dataset's header,
 * not after it): the grid takes it from here when it is fresh.
 */
const early = new Map<string, { at: number; page: ReturnType<typeof fetchRecords> }>();
const EARLY_MS = 5_000;
const earlyKey = (projectId: string, datasetId: string, q: { page: number; limit: number; version?: number; search?: string }) => JSON.stringify([projectId, datasetId, q.page, q.limit, q.version ?? null, q.search ?? '']);

export function prefetchRecords(projectId: string, datasetId: string, q: { page: number; limit: number; version?: number; search?: string }) {
  const page = fetchRecords(projectId, datasetId, q);
  page.catch(() => undefined);
  early.set(earlyKey(projectId, datasetId, q), { at: Date.now(), page });
}

export function readRecords(projectId: string, datasetId: string, q: { page: number; limit: number; version?: number; search?: string }) {
  const key = earlyKey(projectId, datasetId, q);
  const found = early.get(key);
  early.delete(key);
  if (found && Date.now() - found.at < EARLY_MS) return found.page;
  return fetchRecords(projectId, datasetId, q);
}

export function fetchRecords(projectId: string, datasetId: string, q: { page: number; limit: number; version?: number; search?: string }, signal?: AbortSignal) {
  const query = { page: q.page, limit: q.limit, ...(q.version !== undefined ? { version: q.version } : {}), ...(q.search ? { q: q.search } : {}) };
  return GET('/api/dataset/{slugOrId}/records', { params: { ...at(datasetId), query }, projectId, signal });
}

/** The dataset's first record (the experiment setup shows its columns' values). */
export function useFirstRecord(projectId: string, datasetId: string | undefined) {
  return useQuery({
    queryKey: datasetKeys.firstRow(projectId, datasetId),
    queryFn: ({ signal }) => GET('/api/dataset/{slugOrId}/records', { params: { ...at(datasetId!), query: { limit: 1 } }, projectId, signal }),
    enabled: !!datasetId,
  });
}

/** After an upload or an import: the project's datasets, headers and versions read again. */
export function useRefreshDatasets(projectId: string) {
  const client = useQueryClient();
  return async () => {
    await client.invalidateQueries({ queryKey: datasetKeys.all(projectId) });
    await client.invalidateQueries({ queryKey: datasetKeys.one(projectId) });
    await client.invalidateQueries({ queryKey: datasetKeys.versions(projectId) });
  };
}

export function useCreateDataset(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; columnTypes: Column[] }) => POST('/api/dataset', { projectId, body }),
    onSuccess: () => client.invalidateQueries({ queryKey: datasetKeys.all(projectId) }),
  });
}

/** Every change to a dataset refreshes its header (count, version), its versions and the list. */
export function useDatasetMutations(projectId: string, datasetId: string) {
  const client = useQueryClient();
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: datasetKeys.one(projectId, datasetId) }),
      client.invalidateQueries({ queryKey: datasetKeys.versions(projectId, datasetId) }),
      client.invalidateQueries({ queryKey: datasetKeys.all(projectId) }),
    ]);
  const params = at(datasetId);
  return {
    refresh,
    update: useMutation({ mutationFn: (body: { name?: string; columnTypes?: Column[] }) => PATCH('/api/dataset/{slugOrId}', { params, projectId, body }), onSuccess: refresh }),
    archive: useMutation({ mutationFn: () => DELETE('/api/dataset/{slugOrId}', { params, projectId }), onSuccess: refresh }),
    addRecords: useMutation({
      /** Any number of entries, sent 1,000 per request (the API's batch). */
      mutationFn: async (entries: Record<string, unknown>[]) => {
        const added: DatasetRecord[] = [];
        for (let i = 0; i < entries.length; i += 1000) {
          added.push(...(await POST('/api/dataset/{slugOrId}/records', { params, projectId, body: { entries: entries.slice(i, i + 1000) } })).data);
        }
        return added;
      },
      onSuccess: refresh,
    }),
    editRecord: useMutation({
      mutationFn: ({ id, entry }: { id: string; entry: Record<string, unknown> }) => PATCH('/api/dataset/{slugOrId}/records/{recordId}', { params: { path: { slugOrId: datasetId, recordId: id } }, projectId, body: { entry } }),
      onSuccess: refresh,
    }),
    deleteRecords: useMutation({
      mutationFn: async (ids: string[]) => {
        let deleted = 0;
        for (let i = 0; i < ids.length; i += 1000) deleted += (await DELETE('/api/dataset/{slugOrId}/records', { params, projectId, body: { recordIds: ids.slice(i, i + 1000) } })).deletedCount;
        return deleted;
      },
      onSuccess: refresh,
    }),
  };
}

/** One column of an upload: read from file column `from`, stored as `name` of `type`. */
export interface UploadColumn {
  from: string;
  name: string;
  type: ColumnType;
}

/** POST /api/dataset/upload (a new dataset) or /api/dataset/{id}/upload (append), the mapping part before the file. */
export async function uploadFile(projectId: string, file: File, mapping: UploadColumn[], target: { name: string } | { datasetId: string }) {
  const form = new FormData();
  if ('name' in target) form.append('name', target.name);
  form.append('mapping', JSON.stringify(mapping));
  form.append('file', file, file.name);
  const url = 'name' in target ? '/api/dataset/upload' : `/api/dataset/${encodeURIComponent(target.datasetId)}/upload`;
  const response = await sessionFetch(url, { method: 'POST', body: form, headers: { accept: 'application/json', 'x-project-id': projectId } });
  const text = await response.text();
  const body = text ? (JSON.parse(text) as { id?: string; datasetId?: string; recordsCreated: number; error?: { code: string; message: string; meta?: { field?: string } } }) : null;
  if (!response.ok) throw new ApiError(response.status, body?.error?.code ?? 'http_error', body?.error?.message ?? `HTTP ${response.status}`, body?.error?.meta?.field);
  return { datasetId: (body!.id ?? body!.datasetId)!, recordsCreated: body!.recordsCreated };
}

/** How an export writes its cells: for a spreadsheet (formula-like text escaped) or exactly as stored (to upload back). */
export type ExportCells = 'spreadsheet' | 'exact';

/** GET /api/dataset/{id}/export saved as a file: fetched with the project header (a plain link cannot send it), then handed to the browser. */
export async function downloadExport(projectId: string, datasetId: string, format: 'csv' | 'jsonl', cells: ExportCells) {
  const url = `/api/dataset/${encodeURIComponent(datasetId)}/export?format=${format}${format === 'csv' ? `&cells=${cells}` : ''}`;
  const response = await sessionFetch(url, { headers: { 'x-project-id': projectId } });
  if (!response.ok) {
    const text = await response.text();
    throw toApiError(response.status, text.startsWith('{') ? JSON.parse(text) : null, text);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `${datasetId}.${format}`;
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await response.blob());
  link.download = format === 'csv' && cells === 'exact' ? name.replace(/\.csv$/, '-exact.csv') : name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

/** The experiments set up on a dataset (GET /api/experiments?datasetId=): what deleting it leaves without data. */
export function useExperimentsOnDataset(projectId: string, datasetId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['experiments-on-dataset', projectId, datasetId],
    queryFn: ({ signal }) => GET('/api/experiments', { params: { query: { datasetId, pageSize: '200' } }, projectId, signal }),
    select: (d) => d.experiments,
    enabled,
  });
}

export type TraceSource = 'input' | 'output' | 'contexts' | 'messages' | 'metadata' | 'trace_id' | 'span_id' | 'model' | 'name';
export const TRACE_SOURCES: { value: TraceSource; label: string }[] = [
  { value: 'input', label: 'Input' },
  { value: 'output', label: 'Output' },
  { value: 'contexts', label: 'Contexts (retrieved texts)' },
  { value: 'messages', label: 'Messages (the conversation)' },
  { value: 'metadata', label: 'Metadata' },
  { value: 'trace_id', label: 'Trace id' },
  { value: 'span_id', label: 'Span id' },
  { value: 'model', label: 'Model' },
  { value: 'name', label: 'Name' },
];

export function useTraceMapping(projectId: string, datasetId: string | null) {
  return useQuery({
    queryKey: datasetKeys.traceMapping(projectId, datasetId),
    queryFn: ({ signal }) => GET('/api/dataset/{slugOrId}/trace-mapping', { params: at(datasetId!), projectId, signal }),
    enabled: datasetId !== null,
  });
}

export type FromTracesBody =
  | { items: { traceId: string; spanId?: string }[]; mapping: Record<string, string> }
  | { filter: Record<string, unknown>; limit?: number; mapping: Record<string, string> };

export function addFromTraces(projectId: string, datasetId: string, body: FromTracesBody) {
  return POST('/api/dataset/{slugOrId}/from-traces', { params: at(datasetId), projectId, body });
}

/** After traces were added to a dataset: the list (its counts), the dataset's remembered mapping and headers. */
export function useRefreshAfterImport(projectId: string) {
  const client = useQueryClient();
  return useMemo(
    () => ({
      list: () => client.invalidateQueries({ queryKey: datasetKeys.all(projectId) }),
      target: (datasetId: string) =>
        Promise.all([client.invalidateQueries({ queryKey: datasetKeys.traceMapping(projectId, datasetId) }), client.invalidateQueries({ queryKey: datasetKeys.one(projectId) })]),
    }),
    [client, projectId],
  );
}

export function fetchImport(projectId: string, datasetId: string, importId: string) {
  return GET('/api/dataset/{slugOrId}/imports/{importId}', { params: { path: { slugOrId: datasetId, importId } }, projectId });
}
